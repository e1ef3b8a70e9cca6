// Parsing benchmark: what one uploaded document costs the server's only thread.
// Target: about 100 ms of parsing per MB or less, linear in the text (no quadratic parts), and
// refusals (alias bombs, over-deep nesting, oversize text) as cheap as the text they refuse.
// Times are CPU milliseconds (the event loop is blocked for at least as long; on a loaded
// machine wall time is longer), best of RUNS.
import fs from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { DOCUMENT_LIMITS, parseJsonText } from '../server/domain/bounded-parse';
import { parseYamlText } from '../server/domain/bounded-parse-yaml';
import { GRAPH_LIMITS } from '../server/domain/path/parse-graph';

const RUNS = 5;

function cpuMs(fn: () => unknown): number {
  let best = Infinity;
  for (let r = 0; r < RUNS; r++) {
    const start = process.cpuUsage();
    fn();
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

function organizationFile(clusters: number): string {
  const lines = [
    '$schema: /openshift/openshift-cluster-manager-1.yml',
    'name: bench-org',
    'sectors:',
    '- name: stage',
    '- name: prod',
    '  dependencies:',
    '  - name: stage',
  ];
  lines.push('upgradePolicyClusters:');
  for (let i = 0; i < clusters; i++) {
    lines.push(
      `- name: cluster-${String(i).padStart(5, '0')}`,
      '  upgradePolicy:',
      '    workloads: [wl-a, wl-b]',
      '    schedule: "0 13 * * 1-5"',
      '    conditions:',
      `      soakDays: ${i % 5}`,
      `      sector: ${i % 3 === 0 ? 'stage' : 'prod'}`,
      '      mutexes: [m1]',
    );
  }
  return lines.join('\n');
}

function keysDocument(count: number): string {
  return Array.from({ length: count }, (_, i) => `k${i}: v${i}`).join('\n');
}

function billionLaughs(): string {
  const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < 9; i++)
    lines.push(
      `${'abcdefghi'[i]}: &${'abcdefghi'[i]} [${Array(9)
        .fill(`*${'abcdefghi'[i - 1]}`)
        .join(',')}]`,
    );
  return lines.join('\n');
}

function row(label: string, text: string, fn: () => { ok: boolean }): void {
  const mb = Buffer.byteLength(text) / 1048576;
  const ok = fn().ok ? 'accepted' : 'refused';
  const ms = cpuMs(fn);
  console.log(
    `${label.padEnd(44)} ${mb.toFixed(2).padStart(6)} MB ${ms.toFixed(1).padStart(8)} ms ${(ms / Math.max(mb, 1e-9)).toFixed(0).padStart(7)} ms/MB  ${ok}`,
  );
}

export function runParseBench(): void {
  console.log(`limits: ${JSON.stringify(DOCUMENT_LIMITS)}; graphs: ${JSON.stringify(GRAPH_LIMITS)}`);
  const org1k = organizationFile(1000);
  const org5k = organizationFile(5000);
  const org20k = organizationFile(20_000);
  row('organization file, 1,000 clusters', org1k, () => parseYamlText(org1k));
  row('organization file, 5,000 clusters', org5k, () => parseYamlText(org5k));
  row('organization file, 20,000 clusters', org20k, () => parseYamlText(org20k));
  const keys40k = keysDocument(40_000);
  row('40,000 keys in one mapping', keys40k, () => parseYamlText(keys40k));
  const dup = `${keys40k}\nk17: again`;
  row('40,000 keys, duplicate at the end', dup, () => parseYamlText(dup));
  const bomb = billionLaughs();
  row('billion laughs (9^9 strings)', bomb, () => parseYamlText(bomb));
  const deep = '['.repeat(1_000_000);
  row('1,000,000 unclosed [ (YAML)', deep, () => parseYamlText(deep));
  row('1,000,000 unclosed [ (JSON)', deep, () => parseJsonText(deep));
  const near = `a: "${'x'.repeat(DOCUMENT_LIMITS.maxBytes - 10)}"`;
  row('one string just under the size limit', near, () => parseYamlText(near));
  const graph = fs.readFileSync(path.join(process.cwd(), 'server/demo/data/union-4.6-4.9.json'), 'utf8');
  row('graph document (union-4.6-4.9.json)', graph, () => parseJsonText(graph, GRAPH_LIMITS));
  const asJson = JSON.stringify(parseYamlText(org20k).ok ? (parseYamlText(org20k) as { value: unknown }).value : null);
  row('organization file as JSON, 20,000 clusters', asJson, () => parseJsonText(asJson));
  const bareJson = (text: string) => () => {
    JSON.parse(text);
    return { ok: true };
  };
  console.log('\nJSON.parse alone (no limits), for comparison:');
  row('graph document (union-4.6-4.9.json)', graph, bareJson(graph));
  row('organization file as JSON, 20,000 clusters', asJson, bareJson(asJson));

  console.log('\nthe previous parser (yaml package), for comparison:');
  row('yaml uniqueKeys: true, 5,000 keys', keysDocument(5000), () => {
    const doc = parseDocument(keysDocument(5000), { uniqueKeys: true });
    return { ok: doc.errors.length === 0 };
  });
  row('yaml uniqueKeys: true, 10,000 keys', keysDocument(10_000), () => {
    const doc = parseDocument(keysDocument(10_000), { uniqueKeys: true });
    return { ok: doc.errors.length === 0 };
  });
  row('yaml uniqueKeys: false, org file 5,000 clusters', org5k, () => {
    const doc = parseDocument(org5k, { uniqueKeys: false });
    doc.toJS();
    return { ok: doc.errors.length === 0 };
  });
}

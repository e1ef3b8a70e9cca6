// Runs every public contract vector (tests/contracts/vectors/path) through `fleetplan path`
// in-process, checking what tools/check-path-vectors.py checks.
import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { runPathCommand } from '@/server/cli/path-command';

// Vendored copies of ../shared/contracts (see tests/contracts/PROVENANCE.md).
const VECTORS = path.join(__dirname, 'vectors/path');
const GRAPHS = path.join(__dirname, 'graphs');
const META_KEYS = new Set(['exit', 'stderrContains', 'imageset', 'releasesCount', 'stdoutEmpty', 'stderrNonEmpty']);

interface Vector {
  name: string;
  args: string[];
  graphs: string[];
  expected: Record<string, unknown> & { exit: number };
}

type ImagesetExpectation =
  | { mode?: 'pins'; releases: string[]; channels: Record<string, string[]> }
  | { mode: 'fallback'; name: string; minVersion: string; maxVersion: string };

async function run(args: string[]) {
  let stdout = '';
  let stderr = '';
  const exit = await runPathCommand(args, {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    readText: (f) => readFile(f, 'utf8'),
  });
  return { exit, stdout, stderr };
}

function checkImageset(stdout: string, exp: ImagesetExpectation) {
  const doc = parseYaml(stdout) as Record<string, unknown>;
  expect(doc.apiVersion).toBe('mirror.openshift.io/v2alpha1');
  expect(doc.kind).toBe('ImageSetConfiguration');
  const platform = (doc.mirror as { platform: { graph?: unknown; channels: Record<string, unknown>[] } }).platform;
  const chans = platform.channels;
  if (exp.mode === 'fallback') {
    expect(chans).toHaveLength(1);
    expect(chans[0]).toMatchObject({ name: exp.name, minVersion: exp.minVersion, maxVersion: exp.maxVersion, shortestPath: true });
    return;
  }
  expect(platform.graph).toBe(true);
  const names = chans.map((c) => String(c.name));
  expect(new Set(names).size).toBe(names.length);
  const got: string[] = [];
  for (const c of chans) {
    expect(String(c.minVersion)).toBe(String(c.maxVersion));
    const v = String(c.minVersion);
    got.push(v);
    const allowed = exp.channels[v];
    if (allowed) expect(allowed).toContain(String(c.name));
  }
  expect([...got].sort()).toEqual([...exp.releases].sort());
}

const vectors: Vector[] = readdirSync(VECTORS)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => JSON.parse(readFileSync(path.join(VECTORS, f), 'utf8')) as Vector);

describe('contract vectors (contracts/vectors/path)', () => {
  it('finds the public vectors', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(54);
  });

  it.each(vectors.map((v) => [v.name, v] as const))('%s', async (_name, vec) => {
    const args = [...vec.graphs.flatMap((g) => ['--graph', path.join(GRAPHS, g)]), ...vec.args];
    const { exit, stdout, stderr } = await run(args);
    const exp = vec.expected;
    expect({ exit, stderr: exit === exp.exit ? '' : stderr }).toEqual({ exit: exp.exit, stderr: '' });
    if (typeof exp.stderrContains === 'string') expect(stderr).toContain(exp.stderrContains);
    if (exp.stdoutEmpty) expect(stdout).toBe('');
    if (exp.stderrNonEmpty) expect(stderr.trim()).not.toBe('');
    if (exp.imageset) {
      checkImageset(stdout, exp.imageset as ImagesetExpectation);
      return;
    }
    const fields = Object.keys(exp).filter((k) => !META_KEYS.has(k));
    if (fields.length === 0 && !('releasesCount' in exp)) return;
    const doc = JSON.parse(stdout) as Record<string, unknown>;
    for (const k of fields) {
      expect(doc, `field ${k}`).toHaveProperty(k);
      expect(doc[k], `field ${k}`).toEqual(exp[k]);
    }
    if ('releasesCount' in exp) expect((doc.releases as unknown[]).length).toBe(exp.releasesCount);
  });
});

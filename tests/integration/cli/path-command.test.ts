import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parsePathArgs, runPathCommand } from '@/server/cli/path-command';

const GRAPHS = path.resolve(__dirname, '../../contracts/graphs');

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

describe('runPathCommand', () => {
  const g = (name: string) => ['--graph', path.join(GRAPHS, name)];
  it.each<[string, string[], RegExp]>([
    ['no --graph', ['--from', '4.7.4'], /no --graph/],
    ['no --from', [...g('stable-4.7.json')], /no --from/],
    ['an unknown --format', [...g('stable-4.7.json'), '--from', '4.7.4', '--format', 'yaml'], /unknown --format "yaml"/],
    ['an unknown option', [...g('stable-4.7.json'), '--from', '4.7.4', '--fast'], /unknown option --fast/],
    ['a --from that is not SemVer', [...g('stable-4.7.json'), '--from', '4.7'], /--from "4.7" is not a SemVer/],
    ['a missing file', [...g('no-such-graph.json'), '--from', '4.7.4'], /no-such-graph\.json: cannot read: no such file/],
    ['not JSON', [...g('bad-not-json.json'), '--from', '4.7.4'], /bad-not-json\.json: not JSON/],
    ['a top-level array', [...g('bad-top-level-array.json'), '--from', '4.7.4'], /bad-top-level-array\.json: not a graph document/],
    ['no nodes', [...g('bad-no-nodes.json'), '--from', '4.7.4'], /bad-no-nodes\.json: not a graph document/],
    ['a negative edge index', [...g('bad-edge-negative.json'), '--from', '4.7.4'], /bad-edge-negative\.json: .*out of range/],
    ['a bad node version', [...g('bad-version.json'), '--from', '4.7.4'], /bad-version\.json: .*"4\.7" is not SemVer/],
  ])('exits 2 on %s, saying so on stderr', async (_what, args, message) => {
    const r = await run(args);
    expect(r.exit).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
  });

  it('accepts --flag=value', () => {
    const r = parsePathArgs(['--graph=a.json', '--from=4.7.4', '--format=imageset', '--allow-conditional']);
    expect(r).toEqual({
      ok: true,
      args: { graphs: ['a.json'], from: '4.7.4', to: null, channel: null, allowConditional: true, format: 'imageset' },
    });
  });

  it('prints the JSON answer and the reason on stderr when there is no path (exit 3)', async () => {
    const r = await run([...g('stable-4.7.json'), '--from', '4.7.0', '--to', '4.7.4']);
    expect(r.exit).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({ reason: 'ONLY_CONDITIONAL' });
    expect(r.stderr).toMatch(/ONLY_CONDITIONAL/);
  });
});

// The CLI as an operator runs it: `npx --no fleetplan …` starts bin/fleetplan.mjs, which loads the
// bundle `npm run build` makes (dist/cli). Measured: `--help` and `plan` on a generated fleet of
// 10,000 managed clusters, wall time of the whole process (start-up included), median of 5.
// Targets (issue 13): `--help` < 0.3 s, `plan` on 10k < 0.6 s.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateFleet } from './plan-bench';

const RUNS = 5;

function medianWallMs(args: string[]): number {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    const run = spawnSync(process.execPath, ['bin/fleetplan.mjs', ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    times.push(performance.now() - t);
    if (run.status !== 0) throw new Error(`fleetplan ${args.join(' ')} exited ${run.status}: ${run.stderr.slice(0, 300)}`);
  }
  return times.sort((a, b) => a - b)[Math.floor(RUNS / 2)]!;
}

export function runCliBench(): void {
  if (!fs.existsSync(path.join('dist', 'cli'))) {
    console.log('skipped: needs the CLI bundle (`npm run build` or `npm run build:cli`)');
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-cli-bench-'));
  try {
    const file = path.join(dir, 'fleet-10k.json');
    fs.writeFileSync(file, JSON.stringify(generateFleet(10_000)));
    const help = medianWallMs(['--help']);
    const plan = medianWallMs(['plan', file, '--now', '2024-03-12T09:30:00Z']);
    console.log(
      `cli: --help ${help.toFixed(0)} ms (target < 300), plan on 10,000 clusters ${plan.toFixed(0)} ms (target < 600); wall, median of ${RUNS}`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

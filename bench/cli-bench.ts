// The CLI as an operator runs it: `npx --no fleetplan …` starts bin/fleetplan.mjs, which loads the
// bundle `npm run build` makes (dist/cli). Measured: `--help` and `plan` on a generated fleet of
// 10,000 managed clusters, wall time of the whole process (start-up included) through
// bin/fleetplan.mjs, median (and fastest) of 7. npm's own start, which `npx` adds in front of it,
// is measured apart (`npx --no fleetplan -- --help` less `--help`): it is not the CLI's to cut.
// The load average is printed with the figures: on a shared machine they move with it.
// Targets (issue 13): `--help` < 0.3 s, `plan` on 10k < 0.6 s.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadAverage } from './load-average';
import { generateFleet } from './plan-bench';

const RUNS = 7;

type WallMs = { median: number; fastest: number };

function wallMs(command: string, args: string[]): WallMs {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    const run = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    times.push(performance.now() - t);
    if (run.status !== 0)
      throw new Error(`${command} ${args.join(' ')} exited ${run.status}: ${(run.stderr ?? String(run.error)).slice(0, 300)}`);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(RUNS / 2)]!, fastest: times[0]! };
}

/** `fleetplan ARGS` through bin/fleetplan.mjs, as npx starts it once npm has found it. */
function fleetplanWallMs(args: string[]): WallMs {
  return wallMs(process.execPath, ['bin/fleetplan.mjs', ...args]);
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
    const loadBefore = loadAverage();
    const help = fleetplanWallMs(['--help']);
    const plan = fleetplanWallMs(['plan', file, '--now', '2024-03-12T09:30:00Z']);
    console.log(
      `cli: --help ${help.median.toFixed(0)} ms (fastest ${help.fastest.toFixed(0)}; target < 300), ` +
        `plan on 10,000 clusters ${plan.median.toFixed(0)} ms (fastest ${plan.fastest.toFixed(0)}; target < 600); ` +
        `wall through bin/fleetplan.mjs, median of ${RUNS}; load average ${loadBefore} before, ${loadAverage()} after (${os.cpus().length} cores)`,
    );
    const npx = spawnSync('npx', ['--version'], { encoding: 'utf8' });
    if (npx.status === 0) {
      const viaNpx = wallMs('npx', ['--no', 'fleetplan', '--', '--help']);
      console.log(
        `cli: npx --no fleetplan -- --help ${viaNpx.median.toFixed(0)} ms (median of ${RUNS}): npm's own start adds ~${(viaNpx.median - help.median).toFixed(0)} ms (npm ${npx.stdout.trim()})`,
      );
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// Bundles the scheduler's worker thread (server/background/scheduler-worker.ts and everything it
// imports) into one ES module: the app runs ticks, deliveries and graph refreshes there, off the
// event loop that answers requests (server/background/scheduler-thread.ts starts it). Called by
// scripts/build-cli.mjs (`npm run build`) and by the test that starts a real worker.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';

/** where `npm run build` puts it; server/background/scheduler-thread.ts looks there */
export function schedulerWorkerBundle(root) {
  return path.join(root, 'dist', 'worker', 'scheduler-worker.mjs');
}

/** where `npm run build` puts the forecast's worker; server/background/forecast-thread.ts looks there */
export function forecastWorkerBundle(root) {
  return path.join(root, 'dist', 'worker', 'forecast-worker.mjs');
}

export async function bundleSchedulerWorker(root, outfile) {
  fs.rmSync(path.dirname(outfile), { recursive: true, force: true });
  await bundleWorker(root, 'server/background/scheduler-worker.ts', outfile);
}

/** the forecast's worker, beside the scheduler's (bundle the scheduler's first: it clears the folder) */
export async function bundleForecastWorker(root, outfile) {
  await bundleWorker(root, 'server/background/forecast-worker.ts', outfile);
}

async function bundleWorker(root, entry, outfile) {
  await build({
    absWorkingDir: root,
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    // native addon: loaded from node_modules at run time
    external: ['better-sqlite3'],
    // bundled CommonJS dependencies may call require()
    banner: {
      js: "import { createRequire as __fleetplanCreateRequire } from 'node:module'; const require = __fleetplanCreateRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
}

#!/usr/bin/env node
// Bundles the CLI (server/cli/main.ts and everything it imports) ahead of time into dist/cli, so
// `npx --no fleetplan ...` starts plain Node on JavaScript instead of compiling TypeScript through
// tsx on every run (~1 s before any work). Each command stays a lazily loaded chunk, so `--help`
// loads only the dispatcher. Part of `npm run build`; bin/fleetplan.mjs falls back to tsx when the
// bundle is missing or older than the sources.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleForecastWorker, bundleSchedulerWorker, forecastWorkerBundle, schedulerWorkerBundle } from './build-worker.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist', 'cli');
fs.rmSync(outdir, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: ['server/cli/main.ts'],
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  splitting: true,
  outdir,
  outExtension: { '.js': '.mjs' },
  // loaded from node_modules at run time: a native addon, and pg (which names an optional native
  // binding, pg-native, that esbuild cannot resolve)
  external: ['better-sqlite3', 'pg'],
  // bundled CommonJS dependencies may call require()
  banner: {
    js: "import { createRequire as __fleetplanCreateRequire } from 'node:module'; const require = __fleetplanCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
  metafile: true,
});
fs.writeFileSync(path.join(outdir, 'BUILT_AT'), String(Date.now()));
// the project's files the bundle was built from (paths from the root, with `/`): bin/fleetplan.mjs
// compares their times with BUILT_AT at every start
const sources = Object.keys(result.metafile.inputs).filter((input) => !input.startsWith('node_modules/'));
fs.writeFileSync(path.join(outdir, 'SOURCES'), sources.join('\n'));

// The scheduler's worker thread: the app runs ticks, deliveries and graph refreshes there.
await bundleSchedulerWorker(root, schedulerWorkerBundle(root));
// The forecast's worker thread: the app computes forecasts there and keeps them warm.
await bundleForecastWorker(root, forecastWorkerBundle(root));

#!/usr/bin/env node
// The `fleetplan` command. Runs the bundle that `npm run build` makes (dist/cli, plain JavaScript,
// fast start); when there is none, or a source file is newer than it (a checkout being edited),
// it loads the TypeScript CLI through tsx instead, so the command never runs stale code.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bundle = path.join(root, 'dist', 'cli', 'main.mjs');

function builtAt() {
  try {
    return Number(fs.readFileSync(path.join(root, 'dist', 'cli', 'BUILT_AT'), 'utf8'));
  } catch {
    return 0;
  }
}

/**
 * True when a file the bundle was built from (dist/cli/SOURCES, which the build writes) changed
 * after the bundle, is gone, or the list is missing. Test files are not part of the bundle:
 * editing one does not make it stale. Runs at every start: one stat per source (~160), where
 * walking server/, db/ and lib/ for their .ts files (~280, and their folders) took twice as long.
 */
function sourcesNewerThan(time) {
  let sources;
  try {
    sources = fs.readFileSync(path.join(root, 'dist', 'cli', 'SOURCES'), 'utf8').split('\n');
  } catch {
    return true;
  }
  for (const source of sources) {
    // joined by hand: path.join's normalising showed in the profile of a cold start
    const stat = fs.statSync(`${root}/${source}`, { throwIfNoEntry: false });
    if (stat === undefined || stat.mtimeMs > time) return true;
  }
  return false;
}

async function loadMain() {
  const time = builtAt();
  if (time > 0 && process.env.FLEETPLAN_CLI_FROM_SOURCE !== '1' && !sourcesNewerThan(time)) return (await import(bundle)).main;
  // Both loaders are registered: the package is CommonJS, so tsx compiles server/ as CJS, and
  // the dispatcher's lazy imports of command modules must resolve through the CJS hook.
  const { register } = await import('tsx/esm/api');
  const { register: registerCjs } = await import('tsx/cjs/api');
  register();
  registerCjs();
  const mod = await import('../server/cli/main.ts');
  return mod.main ?? mod.default.main;
}

const main = await loadMain();
process.exitCode = await main(process.argv.slice(2));

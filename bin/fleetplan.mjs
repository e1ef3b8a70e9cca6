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
 * True when a .ts file under the folders the CLI is built from (server/, db/, lib/) changed after
 * the bundle. Test files are not part of the bundle: editing one does not make it stale. Runs at
 * every start (~400 files): paths are joined by hand, as path.join's normalising showed in the
 * profile of a cold start.
 */
function sourcesNewerThan(time) {
  const stack = ['server', 'db', 'lib'].map((dir) => `${root}${path.sep}${dir}`);
  while (stack.length > 0) {
    const dir = stack.pop();
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const name = entry.name;
      const full = `${dir}${path.sep}${name}`;
      if (entry.isDirectory()) stack.push(full);
      else if (name.endsWith('.ts') && !name.endsWith('.test.ts') && fs.statSync(full).mtimeMs > time) return true;
    }
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

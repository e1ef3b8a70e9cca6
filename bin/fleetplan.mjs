#!/usr/bin/env node
// The `fleetplan` command: loads the TypeScript CLI through tsx so no build step is needed.
// Both loaders are registered: the package is CommonJS, so tsx compiles server/ as CJS, and
// the dispatcher's lazy imports of command modules must resolve through the CJS hook.
import { register } from 'tsx/esm/api';
import { register as registerCjs } from 'tsx/cjs/api';

register();
registerCjs();
const mod = await import('../server/cli/main.ts');
const main = mod.main ?? mod.default.main;
process.exitCode = await main(process.argv.slice(2));

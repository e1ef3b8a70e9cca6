#!/usr/bin/env node
// The `fleetplan` command: loads the TypeScript CLI through tsx so no build step is needed.
import { tsImport } from 'tsx/esm/api';

const { main } = await tsImport('../server/cli/main.ts', import.meta.url);
process.exitCode = await main(process.argv.slice(2));

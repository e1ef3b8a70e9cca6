#!/usr/bin/env node
// `npm start`: migrate the database, seed the demo fleet when it is empty (simulator only), then
// serve the built app (scripts/serve.mjs: Next's handler behind node:http) on $PORT (default 3000).
// This process keeps its database connection open until it exits: `fleetplan restore` refuses
// while any process has the database open (SQLite's lock), so a running server is always seen,
// with or without the scheduler and before the app's first request.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tsImport } from 'tsx/esm/api';

// Settings first: a bad FLEETPLAN_* value stops here with a message naming it, before anything is
// built, migrated or seeded (server/env.ts).
const { getEnv, EnvError } = await tsImport('../server/env.ts', import.meta.url);
let env;
try {
  env = getEnv();
} catch (err) {
  if (!(err instanceof EnvError)) throw err;
  console.error(`fleetplan: ${err.message}`);
  process.exit(1);
}

if (!fs.existsSync(path.join(process.cwd(), '.next', 'BUILD_ID'))) {
  console.error('fleetplan: no production build found. Run `npm run build` first (the README set-up command does).');
  process.exit(1);
}

const { prepareDatabase } = await tsImport('../server/cli/prepare-database.ts', import.meta.url);
const { closeDatabase } = await tsImport('../db/connect.ts', import.meta.url);
let db;
try {
  db = await prepareDatabase(env);
} catch (err) {
  const debug = process.env.FLEETPLAN_DEBUG === '1';
  console.error(`fleetplan: cannot start: ${err instanceof Error ? (debug ? (err.stack ?? err.message) : err.message) : String(err)}`);
  process.exit(1);
}

const port = process.env.PORT || '3000';
const serve = path.join(path.dirname(new URL(import.meta.url).pathname), 'serve.mjs');
const child = spawn(process.execPath, [serve], {
  stdio: 'inherit',
  env: { ...process.env, PORT: port, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1' },
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  void closeDatabase(db)
    .catch(() => undefined)
    .finally(() => process.exit(code ?? (signal ? 1 : 0)));
});

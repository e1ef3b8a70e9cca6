// The app's one database handle: opened lazily (never at import: `next build` imports routes)
// and kept on globalThis so dev reloads do not open a second connection. Never closed: while it is
// open, SQLite's lock tells `fleetplan restore` that this server uses the file.
import 'server-only';
import { getEnv } from '@/server/env';
import { connectDatabase } from './connect';
import type { Db } from './open-database';

const globalForDb = globalThis as unknown as { __fleetplanDb?: Db };

export function getDb(): Db {
  globalForDb.__fleetplanDb ??= connectDatabase(getEnv().database);
  return globalForDb.__fleetplanDb;
}

// The app's one database handle: opened lazily (never at import: `next build` imports routes)
// and kept on globalThis so dev reloads do not open a second connection.
import 'server-only';
import { openDatabase, resolveDatabaseFile, type Db } from './open-database';

const globalForDb = globalThis as unknown as { __fleetplanDb?: Db };

export function getDb(): Db {
  globalForDb.__fleetplanDb ??= openDatabase(resolveDatabaseFile(process.env.DATABASE_URL));
  return globalForDb.__fleetplanDb;
}

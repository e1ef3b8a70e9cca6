// A look at what a CLI command left in its database file: opened for the one query and closed
// again, so the next command run opens the file as it would in production.
import { openDatabase } from '@/db/open-database';

export function queryFile<T>(dbFile: string, sql: string): T[] {
  const db = openDatabase(dbFile);
  try {
    return db.$client.prepare(sql).all() as T[];
  } finally {
    db.$client.close();
  }
}

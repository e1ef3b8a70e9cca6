// What `fleetplan restore` writes into a restored database before it goes live: the audit row
// naming who restored which file, and no sessions (sign-ins that ended after the backup was taken
// must not come back to life). One transaction.
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { sessions } from '@/db/schema';
import type * as schema from '@/db/schema';
import { appendAudit, type AuditEntry } from './audit-repository';

export function recordRestore(
  db: BetterSQLite3Database<typeof schema>,
  entry: Omit<AuditEntry, 'after'> & { after: Record<string, unknown> },
): number {
  return db.transaction((tx) => {
    const signedOut = tx.delete(sessions).run().changes;
    appendAudit(tx, { ...entry, after: { ...entry.after, sessionsSignedOut: signedOut } });
    return signedOut;
  });
}

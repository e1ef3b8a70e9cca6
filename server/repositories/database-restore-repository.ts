// What `fleetplan restore` writes into a restored database before it goes live: the audit row
// naming who restored which file, and no sessions (sign-ins that ended after the backup was taken
// must not come back to life). One transaction.
import { sql } from 'drizzle-orm';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { sessions } from '@/db/schema';
import type * as schema from '@/db/schema';
import type { AuditEntry } from './audit-repository';

/**
 * The restore's audit row is the instance's. It names only the columns audit_log has had from the
 * first migration: the backup may predate later ones (it is migrated forward when the server opens
 * it), and drizzle's insert would name every column of this build's table.
 */
export function recordRestore(
  db: BetterSQLite3Database<typeof schema>,
  entry: Omit<AuditEntry, 'after' | 'organizationId'> & { after: Record<string, unknown> },
): number {
  return db.transaction((tx) => {
    const signedOut = tx.delete(sessions).run().changes;
    const before = entry.before === undefined ? null : JSON.stringify(entry.before);
    const after = JSON.stringify({ ...entry.after, sessionsSignedOut: signedOut });
    tx.run(
      sql`insert into audit_log (at, actor, action, target, before, after) values (${entry.at.getTime()}, ${entry.actor}, ${entry.action}, ${entry.target}, ${before}, ${after})`,
    );
    return signedOut;
  });
}

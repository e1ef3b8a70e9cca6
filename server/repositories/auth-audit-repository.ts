// Audit entries for sign-ins, users and API tokens. Insert-only: nothing in the app updates or
// deletes audit_log rows. Secrets (passwords, tokens) never go into `before`/`after`.
import type { Db } from '@/db/open-database';
import { auditLog } from '@/db/schema';

export interface AuthAuditEntry {
  at: Date;
  actor: string;
  /** e.g. `auth.login`, `user.create`, `token.revoke` */
  action: string;
  target: string;
  before?: unknown;
  after?: unknown;
}

export function insertAuthAudit(db: Db, entry: AuthAuditEntry): void {
  db.insert(auditLog)
    .values({ ...entry, before: entry.before ?? null, after: entry.after ?? null })
    .run();
}

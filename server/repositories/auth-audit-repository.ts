// Audit entries for sign-ins, users and API tokens, written through the one audit repository
// (audit-repository.ts). Kept as a name for the auth code while it changes; callers may import
// appendAudit directly. Secrets (passwords, tokens) never go into `before`/`after`.
import type { Db } from '@/db/open-database';
import { appendAudit, type AuditEntry } from './audit-repository';

export function insertAuthAudit(db: Db, entry: AuditEntry): void {
  appendAudit(db, entry);
}

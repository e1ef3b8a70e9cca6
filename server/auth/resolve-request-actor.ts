// Who sent this HTTP request. Seam for authentication (sessions, API tokens, later OIDC).
import type { Db } from '@/db/open-database';
import type { Actor } from './actor';

export interface RequestIdentity {
  actor: Actor | null;
  csrfOk: boolean;
}

export async function resolveRequestActor(_db: Db, _req: Request): Promise<RequestIdentity> {
  return { actor: { name: 'demo', role: 'admin', via: 'system' }, csrfOk: true };
}

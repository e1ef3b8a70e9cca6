// Approvals of sectors' gates (db/schema.ts `approvals`): one row per (organization, sector,
// version, kind); a revocation stamps the row, a new approval of the same gate reinstates it.
import { and, asc, eq, isNull } from 'drizzle-orm';
import { approvals } from '@/db/schema';
import type { Db } from '@/db/open-database';
import type { ApprovalKind } from '@/server/domain/plan/sector-gates';
import { tablesOf } from './dialect';
import { connectionHeld, connectionReleased, withTransaction } from './transaction';

export type ApprovalRow = typeof approvals.$inferSelect;

export interface GateKey {
  organizationId: number;
  sector: string;
  version: string;
  kind: ApprovalKind;
}

export async function findApproval(db: Db, key: GateKey): Promise<ApprovalRow | undefined> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { approvals } = tablesOf(db);
  return (
    await db
      .select()
      .from(approvals)
      .where(
        and(
          eq(approvals.organizationId, key.organizationId),
          eq(approvals.sector, key.sector),
          eq(approvals.version, key.version),
          eq(approvals.kind, key.kind),
        ),
      )
      .limit(1)
  )[0];
}

/** Every approval of the organization (revoked ones too when asked), oldest first. */
export async function listApprovals(db: Db, organizationId: number, opts: { includeRevoked?: boolean } = {}): Promise<ApprovalRow[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { approvals } = tablesOf(db);
  return await db
    .select()
    .from(approvals)
    .where(
      opts.includeRevoked
        ? eq(approvals.organizationId, organizationId)
        : and(eq(approvals.organizationId, organizationId), isNull(approvals.revokedAt)),
    )
    .orderBy(asc(approvals.id));
}

/** Approves the gate: a new row, or the revoked row of the same gate given again. */
export async function saveApproval(
  db: Db,
  key: GateKey,
  by: { approvedBy: string; approvedAt: Date; reason: string },
): Promise<ApprovalRow> {
  return withTransaction(db, async () => {
    const { approvals } = tablesOf(db);
    const existing = await findApproval(db, key);
    if (existing) {
      return (
        await db
          .update(approvals)
          .set({ ...by, revokedAt: null, revokedBy: null })
          .where(eq(approvals.id, existing.id))
          .returning()
      )[0]!;
    }
    return (
      await db
        .insert(approvals)
        .values({ ...key, ...by })
        .returning()
    )[0]!;
  });
}

export async function revokeApproval(db: Db, id: number, by: { revokedBy: string; revokedAt: Date }): Promise<ApprovalRow> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { approvals } = tablesOf(db);
  return (await db.update(approvals).set(by).where(eq(approvals.id, id)).returning())[0]!;
}

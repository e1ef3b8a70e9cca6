// Accumulated soak (version_soak) and its daily samples (soak_samples).
import { eq, max, sql } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import type { VersionData } from '@/server/domain/plan/types';
import { isPostgres, tablesOf } from './dialect';
import { pgRun } from './postgres-statement';
import { connectionHeld, connectionReleased, withTransaction } from './transaction';

const DAY_MS = 86_400_000;

/** Every (version, workload) entry of the engine's versionData. */
function soakEntriesOf(versionData: VersionData) {
  return Object.entries(versionData.versions).flatMap(([version, entry]) =>
    Object.entries(entry.workloads).map(([workload, soak]) => ({ version, workload, soakDays: soak.soakDays, reporting: soak.reporting })),
  );
}

/** Stores the engine's versionData (every entry) and the organization's check-in time. */
export async function saveVersionData(db: Db, organizationId: number, versionData: VersionData, now: Date): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  if (isPostgres(db)) {
    // one statement for every entry
    const { organizations } = tablesOf(db);
    await withTransaction(db, async () => {
      await pgRun(
        db,
        sql`insert into version_soak (organization_id, version, workload, soak_days, reporting, first_seen_at)
            select ${organizationId}::integer, e.version, e.workload, e."soakDays", e.reporting, ${now}::timestamptz
            from jsonb_to_recordset(${JSON.stringify(soakEntriesOf(versionData))}::jsonb)
              as e(version text, workload text, "soakDays" double precision, reporting jsonb)
            on conflict (organization_id, version, workload) do update set soak_days = excluded.soak_days, reporting = excluded.reporting`,
      );
      await db.update(organizations).set({ soakCheckIn: now }).where(eq(organizations.id, organizationId));
    });
    return;
  }
  const client = db.$client;
  const upsert = client.prepare(
    `insert into version_soak (organization_id, version, workload, soak_days, reporting, first_seen_at) values (?, ?, ?, ?, ?, ?)
     on conflict(organization_id, version, workload) do update set soak_days = excluded.soak_days, reporting = excluded.reporting`,
  );
  for (const [version, entry] of Object.entries(versionData.versions)) {
    for (const [workload, soak] of Object.entries(entry.workloads)) {
      upsert.run(organizationId, version, workload, soak.soakDays, JSON.stringify(soak.reporting), now.getTime());
    }
  }
  client.prepare('update organizations set soak_check_in = ? where id = ?').run(now.getTime(), organizationId);
}

/** One sample per (version, workload) when the last sample is a day old or more. */
export async function maybeSampleSoak(db: Db, organizationId: number, versionData: VersionData, now: Date): Promise<boolean> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { soakSamples } = tablesOf(db);
  return withTransaction(db, async () => {
    const last = (
      await db
        .select({ at: max(soakSamples.at) })
        .from(soakSamples)
        .where(eq(soakSamples.organizationId, organizationId))
    )[0]?.at;
    if (last && now.getTime() - last.getTime() < DAY_MS) return false;
    if (isPostgres(db)) {
      await pgRun(
        db,
        sql`insert into soak_samples (organization_id, at, version, workload, soak_days, reporting_count)
            select ${organizationId}::integer, ${now}::timestamptz, e.version, e.workload, e."soakDays", jsonb_array_length(e.reporting)
            from jsonb_to_recordset(${JSON.stringify(soakEntriesOf(versionData))}::jsonb)
              as e(version text, workload text, "soakDays" double precision, reporting jsonb)`,
      );
      return true;
    }
    const stmt = db.$client.prepare(
      'insert into soak_samples (organization_id, at, version, workload, soak_days, reporting_count) values (?, ?, ?, ?, ?, ?)',
    );
    for (const [version, entry] of Object.entries(versionData.versions)) {
      for (const [workload, soak] of Object.entries(entry.workloads))
        stmt.run(organizationId, now.getTime(), version, workload, soak.soakDays, soak.reporting.length);
    }
    return true;
  });
}

// Accumulated soak (version_soak) and its daily samples (soak_samples).
import { eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import { soakSamples } from '@/db/schema';
import type { VersionData } from '@/server/domain/plan/types';
import { connectionHeld, connectionReleased } from './transaction';

const DAY_MS = 86_400_000;

/** Stores the engine's versionData (every entry) and the organization's check-in time. */
export async function saveVersionData(db: Db, organizationId: number, versionData: VersionData, now: Date): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
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
  const last =
    db
      .select({ at: sql<number | null>`max(${soakSamples.at})` })
      .from(soakSamples)
      .where(eq(soakSamples.organizationId, organizationId))
      .get()?.at ?? null;
  if (last !== null && now.getTime() - last < DAY_MS) return false;
  const stmt = db.$client.prepare(
    'insert into soak_samples (organization_id, at, version, workload, soak_days, reporting_count) values (?, ?, ?, ?, ?, ?)',
  );
  for (const [version, entry] of Object.entries(versionData.versions)) {
    for (const [workload, soak] of Object.entries(entry.workloads))
      stmt.run(organizationId, now.getTime(), version, workload, soak.soakDays, soak.reporting.length);
  }
  return true;
}

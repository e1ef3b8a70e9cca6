// Accumulated soak per (version, workload) and its daily samples.
import { asc } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import { versionSoak } from '@/db/schema';

export function listVersionSoak(db: Db) {
  return db.select().from(versionSoak).orderBy(asc(versionSoak.version), asc(versionSoak.workload)).all();
}

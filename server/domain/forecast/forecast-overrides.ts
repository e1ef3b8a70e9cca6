/**
 * What-if overrides for the forecast: policy changes applied in memory to the stored engine
 * input document (contract shape, before validation), never saved. Pure.
 */

export type ForecastOverrides = {
  /** soakDays for every cluster of a sector (null removes the soak condition) */
  sectorSoakDays?: { sector: string; soakDays: number | null }[];
  /** a sector's maxParallelUpgrades ("N" or "P%"; null removes it) */
  sectorMaxParallel?: { sector: string; value: string | null }[];
  /** organization blockedVersions regexes to add */
  blockVersions?: string[];
  /** organization blockedVersions patterns to drop (exact pattern text) */
  unblockPatterns?: string[];
  /** forecast as if the organization were not frozen */
  ignoreFreeze?: boolean;
  /** forecast as if there were no maintenance exclusions */
  ignoreExclusions?: boolean;
};

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Returns a copy of the raw document with the overrides applied (the input is not modified).
 * Unknown sectors are ignored here; validation of the result reports anything malformed.
 */
export function applyForecastOverrides<T>(document: T, overrides: ForecastOverrides | undefined): T {
  if (!overrides) return document;
  const doc = structuredClone(document) as unknown;
  if (!isObject(doc)) return document;
  const org = isObject(doc.organization) ? doc.organization : undefined;
  if (org) {
    const blocked = Array.isArray(org.blockedVersions) ? (org.blockedVersions as unknown[]) : [];
    const drop = new Set(overrides.unblockPatterns ?? []);
    const kept = blocked.filter((p) => !(typeof p === 'string' && drop.has(p)));
    for (const p of overrides.blockVersions ?? []) if (!kept.includes(p)) kept.push(p);
    org.blockedVersions = kept;
    const mpu = new Map((overrides.sectorMaxParallel ?? []).map((o) => [o.sector, o.value]));
    if (mpu.size > 0 && Array.isArray(org.sectors)) {
      for (const s of org.sectors as unknown[]) {
        if (!isObject(s) || typeof s.name !== 'string' || !mpu.has(s.name)) continue;
        const value = mpu.get(s.name);
        if (value === null || value === undefined || value === '') delete s.maxParallelUpgrades;
        else s.maxParallelUpgrades = value;
      }
    }
  }
  const soak = new Map((overrides.sectorSoakDays ?? []).map((o) => [o.sector, o.soakDays]));
  if (soak.size > 0 && Array.isArray(doc.clusters)) {
    for (const c of doc.clusters as unknown[]) {
      if (!isObject(c) || !isObject(c.upgradePolicy)) continue;
      const policy = c.upgradePolicy;
      const conditions = isObject(policy.conditions) ? policy.conditions : (policy.conditions = {} as Obj);
      const sector = conditions.sector;
      if (typeof sector !== 'string' || !soak.has(sector)) continue;
      const days = soak.get(sector);
      if (days === null || days === undefined) delete conditions.soakDays;
      else conditions.soakDays = days;
    }
  }
  return doc as T;
}

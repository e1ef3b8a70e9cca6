// The soak figures validated again after a write, reusing what the previous validation made of
// the reporting lists that did not change. Every scheduler tick writes the soak figures; on
// 10,000 clusters the reporting lists hold a name per reporting cluster and workload, and turning
// each list into its validated, de-duplicated copy again (30–70 ms on the request thread, and as
// much garbage) is most of validateVersionData's cost, while a tick seldom changes who reports.
// The rules stay validateVersionData's own: the figures are validated by it with the unchanged
// lists left out, and any problem is told by validating the whole document as before.
import type { Problem, VersionData } from './types';
import { validateVersionData } from './validate-plan-input';
import { isPlainObject } from '@/lib/policy-spec';

/** One successful validation: the raw document it was given (never modified) and its result. */
export type ValidatedVersionData = { raw: unknown; versionData: VersionData };

type Obj = Record<string, unknown>;

function own(o: Obj, key: string): unknown {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

function sameList(a: unknown, b: unknown): boolean {
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The raw reporting list at version/workload of a document, if it has one. */
function rawReporting(raw: unknown, version: string, workload: string): unknown {
  if (!isPlainObject(raw)) return undefined;
  const versions = own(raw, 'versions');
  if (!isPlainObject(versions)) return undefined;
  const entry = own(versions, version);
  if (!isPlainObject(entry)) return undefined;
  const workloads = own(entry, 'workloads');
  if (!isPlainObject(workloads)) return undefined;
  const w = own(workloads, workload);
  return isPlainObject(w) ? own(w, 'reporting') : undefined;
}

/**
 * Exactly validateVersionData(raw, now) (a property test holds it to that), cheaper when
 * `previous` validated a document with mostly the same reporting lists: a list equal item by item
 * to the one at the same version and workload there is not validated again, its validated copy
 * is reused (shared: results are read, never modified). `raw` must not be modified afterwards
 * either, as the result keeps it to compare the next document with.
 */
export function revalidateVersionData(
  raw: unknown,
  now: string,
  previous: ValidatedVersionData | null,
): { ok: true; validated: ValidatedVersionData } | { ok: false; problems: Problem[] } {
  const whole = () => {
    const result = validateVersionData(raw, now);
    return result.ok
      ? { ok: true as const, validated: { raw, versionData: result.versionData } }
      : { ok: false as const, problems: result.problems };
  };
  if (previous === null || !isPlainObject(raw) || !isPlainObject(raw.versions)) return whole();
  // the document with the unchanged reporting lists left out (validated as absent: no problem, [])
  const reused: [version: string, workload: string, reporting: string[]][] = [];
  const versions: Obj = {};
  for (const [version, entry] of Object.entries(raw.versions)) {
    if (!isPlainObject(entry) || !isPlainObject(entry.workloads)) {
      versions[version] = entry;
      continue;
    }
    const workloads: Obj = {};
    for (const [workload, w] of Object.entries(entry.workloads)) {
      if (!isPlainObject(w) || !sameList(w.reporting, rawReporting(previous.raw, version, workload))) {
        workloads[workload] = w;
        continue;
      }
      const soakBefore = Object.hasOwn(previous.versionData.versions, version) ? previous.versionData.versions[version] : undefined;
      const validatedBefore = soakBefore && Object.hasOwn(soakBefore.workloads, workload) ? soakBefore.workloads[workload] : undefined;
      if (!validatedBefore) {
        workloads[workload] = w;
        continue;
      }
      workloads[workload] = { soakDays: w.soakDays, reporting: undefined };
      reused.push([version, workload, validatedBefore.reporting]);
    }
    versions[version] = { ...entry, workloads };
  }
  const result = validateVersionData({ ...raw, versions }, now);
  if (!result.ok) return whole();
  for (const [version, workload, reporting] of reused) result.versionData.versions[version]!.workloads[workload]!.reporting = reporting;
  return { ok: true, validated: { raw, versionData: result.versionData } };
}

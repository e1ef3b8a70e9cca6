// The cluster policy in the upgrade service's document form, as stored and as the YAML shows it.
export type ScheduleDoc = string | { cron: string; location?: string; isoWeek?: string | number; suspend?: boolean; [k: string]: unknown };

export interface ConditionsDoc {
  soakDays?: number;
  mutexes?: string[];
  sector?: string;
  blockedVersions?: string[];
  [k: string]: unknown;
}

export interface PolicyDoc {
  workloads: string[];
  schedule: ScheduleDoc;
  conditions?: ConditionsDoc;
  [k: string]: unknown;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A YAML scalar as the form's text: numbers and booleans spelled out, anything else (a mapping, a
 * list, null) empty, so the validator reports a missing value rather than "[object Object]".
 */
export function scalarText(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
}

/** A YAML list as texts (items as scalarText, so positions and problem paths stay put); not a list: []. */
export function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.map((x: unknown) => scalarText(x)) : [];
}

/** Drops empty optional keys so the YAML stays as short as the user meant it. */
export function tidyConditions(c: ConditionsDoc): ConditionsDoc | undefined {
  const out: ConditionsDoc = {};
  for (const [k, v] of Object.entries(c)) {
    if (v === undefined || v === '' || (Array.isArray(v) && v.length === 0)) continue;
    out[k] = v;
  }
  return Object.keys(out).length ? out : undefined;
}

export function withConditions(doc: PolicyDoc, patch: Partial<ConditionsDoc>): PolicyDoc {
  const conditions = tidyConditions({ ...(isObject(doc.conditions) ? doc.conditions : {}), ...patch });
  const { conditions: _drop, ...rest } = doc;
  return conditions ? { ...rest, conditions } : rest;
}

export const NEW_POLICY: PolicyDoc = { workloads: [], schedule: '0 13 * * 1-5', conditions: { soakDays: 0 } };

/**
 * Problems reported at paths inside the policy (`conditions.soakDays`, `workloads[1]`,
 * `schedule.cron`), grouped by the form field that shows them. Unmatched ones go to `other`.
 */
export function groupPolicyProblems<P extends { path: string; message: string }>(
  problems: readonly P[],
  fieldOf: (p: P) => string | undefined,
): Record<string, P[]> {
  const out: Record<string, P[]> = {};
  for (const p of problems) {
    const f = fieldOf(p) ?? '';
    const key =
      f === ''
        ? 'other'
        : f.startsWith('workloads')
          ? 'workloads'
          : f === 'schedule' || f.startsWith('schedule.cron')
            ? 'schedule.cron'
            : f.startsWith('schedule.location')
              ? 'schedule.location'
              : f.startsWith('schedule.isoWeek')
                ? 'schedule.isoWeek'
                : f.startsWith('schedule')
                  ? 'schedule.cron'
                  : f.startsWith('conditions.soakDays')
                    ? 'conditions.soakDays'
                    : f.startsWith('conditions.mutexes')
                      ? 'conditions.mutexes'
                      : f.startsWith('conditions.sector')
                        ? 'conditions.sector'
                        : f.startsWith('conditions.blockedVersions')
                          ? 'conditions.blockedVersions'
                          : 'other';
    (out[key] ??= []).push(p);
  }
  return out;
}

import { diffForecasts, type ForecastDiff } from '@/server/domain/forecast/forecast-diff';
import { DEFAULT_UPGRADE_MINUTES, defaultTargetVersion, type ForecastResult } from '@/server/domain/forecast/forecast-rollout';
import type { NamedProblem } from '@/server/domain/policy-files/named-problems';
import { readDataVersion } from '@/server/repositories/data-version-repository';
import { gatedForecastOptions, runForecastSliced } from '../forecast-runner';
import { evaluateStoredFleet, evaluationInstant } from '../stored-fleet-evaluation';
import { evaluateDraft, type PolicyDraft } from './evaluate-draft';
import type { PolicyContext } from './policy-store';

/** The stored fleet's forecast of the last minute, per connection (edits in a row compare with the same one). */
const storedForecasts = new WeakMap<object, { key: string; run: Promise<ForecastResult> }>();

/** How far the editor's forecast impact looks ahead: long enough for soak days and weekly windows. */
export const IMPACT_HORIZON_DAYS = 30;

export type ForecastImpact =
  | { ok: false; problems: NamedProblem[]; diff: null; horizonDays: number }
  | { ok: true; problems: NamedProblem[]; diff: ForecastDiff; horizonDays: number };

/**
 * The draft's impact as the difference between two forecasts from now, with the stored policies
 * and with the draft applied: who reaches the fleet's target version sooner, later, no longer or
 * now within the horizon, and who upgrades along other versions. Both run under the scheduler's
 * gates and towards the target of the stored fleet (the newest version offered), so a change that
 * blocks that version shows as clusters no longer reaching it.
 */
export async function previewForecastImpact(ctx: PolicyContext, draft: PolicyDraft, signal?: AbortSignal): Promise<ForecastImpact> {
  // both forecasts start at the start of the minute: the stored fleet's is then the same for
  // every edit of that minute (while the data stays), and is kept
  const minute = evaluationInstant(ctx.now());
  const result = await evaluateDraft({ ...ctx, now: () => minute }, draft);
  if (!result.ok) return { ok: false as const, problems: result.problems, diff: null, horizonDays: IMPACT_HORIZON_DAYS };
  // the stored fleet as the other views see it at this minute (validated once per data version)
  const current = await evaluateStoredFleet(ctx.db, result.org, minute);
  if (!current.ok) {
    const problems: NamedProblem[] = [{ path: '', message: 'the stored fleet does not validate, so there is no forecast to compare with' }];
    return { ok: false as const, problems, diff: null, horizonDays: IMPACT_HORIZON_DAYS };
  }
  const now = current.input.now;
  const options = await gatedForecastOptions(ctx.db, result.org, minute, {
    targetVersion: defaultTargetVersion(current.input) ?? undefined,
    horizonDays: IMPACT_HORIZON_DAYS,
    upgradeMinutes: DEFAULT_UPGRADE_MINUTES,
  });
  const key = JSON.stringify([await readDataVersion(ctx.db), now, options.targetVersion ?? null]);
  const kept = storedForecasts.get(ctx.db.$client);
  let beforeRun: Promise<ForecastResult>;
  if (kept?.key === key) beforeRun = kept.run;
  else {
    // not tied to this request's signal: the next edit of the minute uses it too
    beforeRun = runForecastSliced(current.input, options);
    storedForecasts.set(ctx.db.$client, { key, run: beforeRun });
    beforeRun.catch(() => storedForecasts.delete(ctx.db.$client));
  }
  const before = await beforeRun;
  signal?.throwIfAborted();
  const after = await runForecastSliced(result.input, options, signal);
  return { ok: true as const, problems: [] as NamedProblem[], diff: diffForecasts(before, after), horizonDays: IMPACT_HORIZON_DAYS };
}

// Running the forecast the way the scheduler would act: the stored gates (freeze, exclusions,
// the health gate) as options, and the simulation in slices that yield to the event loop between
// engine runs, so a forecast of 10,000 clusters never stalls the server's other requests. Used
// by the Forecast page (forecast-service.ts) and the policy editor's forecast impact.
import type { Db } from '@/db/open-database';
import { startForecast, type ForecastOptions, type ForecastResult } from '@/server/domain/forecast/forecast-rollout';
import type { PlanInput } from '@/server/domain/plan/types';
import { loadGateState, type GateOrganization } from '@/server/repositories/gate-state-repository';

/** Engine runs per slice: one run of a 10k-cluster fleet takes ~0.05 s, then other requests get a turn. */
const SLICE_RUNS = 1;

export interface GatedForecastOptions {
  targetVersion?: string;
  horizonDays: number;
  upgradeMinutes: number;
  /** what-if: forecast as if there were no maintenance exclusions / no freeze */
  ignoreExclusions?: boolean;
  ignoreFreeze?: boolean;
}

/** The forecast's options with the scheduler's own gates at `at`, so its first step is what the next tick does. */
export async function gatedForecastOptions(db: Db, org: GateOrganization, at: Date, opts: GatedForecastOptions): Promise<ForecastOptions> {
  const gates = await loadGateState(db, org, at);
  return {
    targetVersion: opts.targetVersion,
    horizonDays: opts.horizonDays,
    upgradeMinutes: opts.upgradeMinutes,
    exclusions: opts.ignoreExclusions
      ? []
      : gates.exclusions.map((e) => ({
          scope: e.scope,
          subject: e.subject,
          startsAt: new Date(e.startsAt).toISOString(),
          endsAt: new Date(e.endsAt).toISOString(),
          reason: e.reason,
        })),
    frozen: org.frozen && !opts.ignoreFreeze,
    healthGate: gates.healthGate,
    healthIssues: gates.healthIssues,
    // as the scheduler would: a halted version and an unacknowledged version gate hold their clusters
    ...(gates.halts ? { halts: gates.halts } : {}),
    ...(gates.versionGates ? { versionGates: gates.versionGates } : {}),
    ...(gates.inhibitors ? { inhibitors: gates.inhibitors } : {}),
    // and a cluster with a target more than one minor away follows the stored graph's route
    ...(gates.routes ? { routes: gates.routes } : {}),
  };
}

/**
 * Simulates `input` forward in slices, yielding to the event loop between them; stops (throwing
 * the signal's reason) when `signal` aborts, so a preview the browser gave up on costs no more.
 */
export async function runForecastSliced(input: PlanInput, options: ForecastOptions, signal?: AbortSignal): Promise<ForecastResult> {
  const sim = startForecast(input, options);
  while (!sim.advance(SLICE_RUNS)) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    signal?.throwIfAborted();
  }
  return sim.finish();
}

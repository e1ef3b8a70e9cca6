// Scheduler use cases: status, recent ticks, run now (optionally dry), pause/resume, and the
// simulator's clock (get, speed, pause, advance).
import type { Db } from '@/db/open-database';
import type { Actor } from '@/server/auth/actor';
import { simulatedNow } from '@/server/fleet-clock';
import type { FleetplanEnv } from '@/server/env';
import {
  advanceSimulator,
  ensureSimulatorState,
  pauseSimulator,
  resumeSimulator,
  setSimulatorSpeed,
  readSimulatorReleases,
} from '@/server/integrations/providers/simulator';
import { appendAudit } from '@/server/repositories/audit-repository';
import {
  getLease,
  HEALTH_GATE_SETTING,
  listRecentTicks,
  readSetting,
  SCHEDULER_LEASE_NAME,
  SCHEDULER_PAUSED_SETTING,
  writeSetting,
} from '@/server/repositories/scheduler-repository';
import { AppError } from './app-error';
import type { SchedulerControl } from './scheduler-control';

/**
 * `realNow` stamps audit rows: moving the simulated clock must not move the audit trail.
 * `control` is the process's scheduler loop (or NO_SCHEDULER), handed in: services do not import the scheduler.
 */
export function createSchedulerService(
  db: Db,
  realNow: () => Date,
  env: Pick<FleetplanEnv, 'provider' | 'tickSeconds'>,
  control: SchedulerControl,
) {
  const providerName = env.provider.name;
  const requireSimulator = () => {
    if (providerName !== 'simulator')
      throw new AppError('PRECONDITION_FAILED', `The clock belongs to the simulator; the provider is ${providerName}`);
  };
  const clockView = async () => {
    const realNow = new Date();
    const clock = await ensureSimulatorState(db, realNow);
    const releases = await readSimulatorReleases(db);
    const simNow = simulatedNow(clock, realNow);
    return {
      now: simNow.toISOString(),
      speed: clock.speed,
      paused: clock.speed === 0,
      upcomingReleases: (releases?.pending ?? []).filter((r) => Date.parse(r.publishAt) > simNow.getTime()).slice(0, 5),
    };
  };
  const audit = async (actor: Actor, action: string, after: unknown) =>
    await appendAudit(db, { organizationId: null, at: realNow(), actor: actor.name, action, target: 'scheduler', after });
  return {
    async status() {
      const lease = await getLease(db, SCHEDULER_LEASE_NAME);
      const last = (await listRecentTicks(db, 1))[0] ?? null;
      return {
        provider: providerName,
        paused: (await readSetting<boolean>(db, SCHEDULER_PAUSED_SETTING)) ?? false,
        healthGate: (await readSetting<boolean>(db, HEALTH_GATE_SETTING)) ?? true,
        intervalSeconds: env.tickSeconds,
        runtime: control.runtimeStatus(),
        lease: lease
          ? { holder: lease.holder, expiresAt: lease.expiresAt.toISOString(), valid: lease.expiresAt.getTime() > Date.now() }
          : null,
        lastTick: last,
      };
    },
    async recentTicks(limit: number) {
      return await listRecentTicks(db, limit);
    },
    async runNow(input: { dryRun: boolean; actor: Actor }) {
      await audit(input.actor, input.dryRun ? 'scheduler.dry-run' : 'scheduler.run-now', { dryRun: input.dryRun });
      const result = await control.runTick(db, { dryRun: input.dryRun });
      if (result.status === 'skipped') throw new AppError('CONFLICT', `Tick not run: ${result.reason}`);
      return result.status === 'succeeded'
        ? { status: result.status, tickId: result.tickId, summary: result.summary }
        : { status: result.status, tickId: result.tickId, error: result.error };
    },
    async setPaused(input: { paused: boolean; actor: Actor }) {
      await writeSetting(db, SCHEDULER_PAUSED_SETTING, input.paused, new Date());
      await audit(input.actor, input.paused ? 'scheduler.pause' : 'scheduler.resume', { paused: input.paused });
      return { paused: input.paused };
    },
    async setHealthGate(input: { enabled: boolean; actor: Actor }) {
      await writeSetting(db, HEALTH_GATE_SETTING, input.enabled, new Date());
      await audit(input.actor, 'scheduler.health-gate', { enabled: input.enabled });
      return { enabled: input.enabled };
    },
    async clock() {
      if (providerName !== 'simulator') return null;
      return await clockView();
    },
    async setClockSpeed(input: { speed: number; actor: Actor }) {
      requireSimulator();
      await setSimulatorSpeed(db, input.speed, new Date());
      await audit(input.actor, 'simulator.speed', { speed: input.speed });
      return await clockView();
    },
    async pauseClock(input: { paused: boolean; actor: Actor }) {
      requireSimulator();
      if (input.paused) await pauseSimulator(db, new Date());
      else await resumeSimulator(db, new Date());
      await audit(input.actor, input.paused ? 'simulator.pause' : 'simulator.resume', {});
      return await clockView();
    },
    async advanceClock(input: { seconds: number; actor: Actor }) {
      requireSimulator();
      await advanceSimulator(db, input.seconds * 1000, new Date());
      await audit(input.actor, 'simulator.advance', { seconds: input.seconds });
      return await clockView();
    },
  };
}

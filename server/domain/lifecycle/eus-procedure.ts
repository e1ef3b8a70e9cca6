/**
 * The EUS-to-EUS control-plane-only procedure (lifecycle.eusControlPlaneOnly; seed 004 and the
 * OpenShift "Control Plane Only update" runbook the Paths page gives by hand): a run from an even
 * EUS minor to the next one over the odd minor between them (4.14.z → 4.15.z → 4.16.z on an eus
 * channel) is ONE attempt that
 *
 *   pausing-workers ─▶ control-plane-hop (hop 1, admin acknowledgements, hop 2) ─▶ unpausing-workers ─▶ workers-rolling
 *
 * pauses every non-master MachineConfigPool the admin had not paused, upgrades the control plane
 * hop by hop (the workers stay on the old release: one reboot instead of two), unpauses only the
 * pools it paused and watches the workers roll out until every pool is Updated.
 *
 * Pure: the tick passes the reading (pools, ClusterVersion) and the time; this module says what to
 * write (each write an effect with its own idempotency key) and when a phase is over. Exactly once:
 * what a write is about to do is recorded on the attempt with its intent before the call; a later
 * read that shows it done (a pool paused, a hop at the provider) settles it and it is never asked
 * again; only a write recorded but still not seen done is asked again, with the same key (the
 * provider re-reads and does not write what is already so).
 */
import { parseChannelName } from '../version/channel-names';
import { parseVersion } from '../version/version';
import { adminGatesToAcknowledge } from '../path/admin-gates';
import type { MachineConfigPoolReading, ObservedCluster } from './observation';
import { formatDuration } from './options';
import type { LifecycleReason } from './reasons';

export interface EusHop {
  version: string;
  /** the channel to switch to before this hop (null: the cluster's channel holds it) */
  channel: string | null;
  /** its start intent was written */
  requestedAt: number | null;
  /** the provider was seen to hold it (call returned, or a read after a crash) */
  confirmedAt: number | null;
  runningAt: number | null;
  /** the provider reports it completed (ClusterVersion history Completed) */
  doneAt: number | null;
}

export interface EusAdminAck {
  /** the admin-acks key, e.g. `ack-4.15-kube-1.29-api-removals-in-4.16` */
  gate: string;
  requestedAt: number;
  confirmedAt: number | null;
}

/** The procedure's record on the attempt (stored as JSON; shown on the cluster page). */
export interface EusProcedureProgress {
  /** the route: the cluster's version, the odd minor's release, the target */
  route: string[];
  hops: EusHop[];
  /** non-master pools fleetplan pauses (and later unpauses); null until the pause was asked */
  pausedByUs: string[] | null;
  /** non-master pools the admin had paused before: never touched */
  pausedBefore: string[];
  pausedAt: number | null;
  acks: EusAdminAck[];
  unpauseRequestedAt: number | null;
  unpausedAt: number | null;
  rolledOutAt: number | null;
  /** when the current phase (or wait) began: its timeout counts from here */
  phaseSince: number | null;
  /** the last hold message noted (noted again only when it changes) */
  holding: string | null;
}

export type EusEffect =
  | { kind: 'set-pool-paused'; idempotencyKey: string; pool: string; paused: boolean }
  | { kind: 'admin-ack'; idempotencyKey: string; gate: string }
  | {
      kind: 'start-hop';
      idempotencyKey: string;
      hop: number;
      version: string;
      /** the channel switch first (its own intent), when the cluster reports another channel */
      channel: { idempotencyKey: string; name: string } | null;
      at: number;
    };

export const pauseKey = (attemptId: number, pool: string) => `${attemptId}:pause:${pool}`;
export const unpauseKey = (attemptId: number, pool: string) => `${attemptId}:unpause:${pool}`;
export const hopStartKey = (attemptId: number, hop: number) => `${attemptId}:hop${hop + 1}:start`;
export const hopChannelKey = (attemptId: number, hop: number) => `${attemptId}:hop${hop + 1}:channel`;
export const adminAckKey = (attemptId: number, gate: string) => `${attemptId}:ack:${gate}`;

/**
 * Whether a route is an EUS-to-EUS run: exactly two hops, from an even minor over the odd one to
 * the next even one, with the channel the cluster is on after the first hop's switch an eus channel
 * of the target's minor (`eus-4.16` holds both hops: the second needs no switch).
 */
export function isEusToEusRoute(path: readonly string[], channelAfterSwitch: string | undefined | null): boolean {
  if (path.length !== 3) return false;
  const [a, b, c] = path.map((v) => parseVersion(v));
  if (!a || !b || !c || a.major !== b.major || b.major !== c.major) return false;
  if (a.minor % 2 !== 0 || b.minor !== a.minor + 1 || c.minor !== a.minor + 2) return false;
  const channel = channelAfterSwitch ? parseChannelName(channelAfterSwitch) : null;
  return channel !== null && channel.prefix === 'eus' && channel.major === c.major && channel.minor === c.minor;
}

/** The providers that can pause MachineConfigPools, so the run can be control-plane-only (OCM's upgrade service rolls the workers itself). */
export function providerPausesWorkerPools(provider: string | undefined): boolean {
  return provider === undefined || provider === 'kubernetes' || provider === 'simulator';
}

/**
 * Whether fleetplan takes this route for a cluster as one EUS-to-EUS control-plane-only run: the
 * policy opts in and the route is EUS-to-EUS — `runs` where the provider can pause the worker
 * pools, `not-applied` where it cannot (each hop an upgrade of its own); null otherwise.
 */
export function eusRunOfRoute(
  path: readonly string[],
  channelAfterSwitch: string | null | undefined,
  optedIn: boolean,
  provider: string | undefined,
): 'runs' | 'not-applied' | null {
  if (!optedIn || !isEusToEusRoute(path, channelAfterSwitch)) return null;
  return providerPausesWorkerPools(provider) ? 'runs' : 'not-applied';
}

/** The record of a new run (nothing asked yet). */
export function newEusProgress(path: readonly string[], firstHopChannel: string | null): EusProcedureProgress {
  return {
    route: [...path],
    hops: path.slice(1).map((version, i) => ({
      version,
      channel: i === 0 ? firstHopChannel : null,
      requestedAt: null,
      confirmedAt: null,
      runningAt: null,
      doneAt: null,
    })),
    pausedByUs: null,
    pausedBefore: [],
    pausedAt: null,
    acks: [],
    unpauseRequestedAt: null,
    unpausedAt: null,
    rolledOutAt: null,
    phaseSince: null,
    holding: null,
  };
}

const names = (list: readonly string[]) => (list.length ? list.join(', ') : 'none');
const workerPools = (pools: readonly MachineConfigPoolReading[]) => pools.filter((p) => !p.master);

/** What the attempt's messages say about pools left paused when the run stops before the unpause. */
export function pausedPoolsNote(progress: EusProcedureProgress): string {
  const ours = progress.pausedByUs ?? [];
  if (ours.length === 0 || progress.unpausedAt !== null) return '';
  return `; worker pools ${names(ours)} stay paused (unpause them with oc patch mcp NAME --type merge -p '{"spec":{"paused":false}}' when ready)`;
}

/** The start of the procedure: which pools to pause (the rest were paused by the admin). */
export function beginPause(
  attemptId: number,
  progress: EusProcedureProgress,
  pools: readonly MachineConfigPoolReading[],
  now: number,
): { progress: EusProcedureProgress; effects: EusEffect[]; message: string } {
  const workers = workerPools(pools);
  const pausedBefore = workers.filter((p) => p.paused).map((p) => p.name);
  const toPause = workers.filter((p) => !p.paused).map((p) => p.name);
  const left = pausedBefore.length ? `; already paused by the admin, left alone: ${names(pausedBefore)}` : '';
  return {
    progress: { ...progress, pausedByUs: toPause, pausedBefore, phaseSince: now },
    effects: toPause.map((pool) => ({ kind: 'set-pool-paused', idempotencyKey: pauseKey(attemptId, pool), pool, paused: true })),
    message: `EUS-to-EUS control-plane-only run ${progress.route.join(' → ')}: pausing worker pools ${names(toPause)}${left}`,
  };
}

export type EusOutcome =
  | { kind: 'wait'; progress: EusProcedureProgress; effects: EusEffect[]; notes: string[] }
  | { kind: 'next'; progress: EusProcedureProgress; effects: EusEffect[]; notes: string[]; message: string }
  | { kind: 'failed'; reason: LifecycleReason; message: string; progress: EusProcedureProgress; notes: string[]; timedOut: boolean };

export interface EusStepInput {
  attemptId: number;
  now: number;
  cluster: ObservedCluster;
  upgradeTimeoutMs: number;
  workerRolloutTimeoutMs: number;
  /**
   * the start gates of a hop judged now (the lifecycle's gates.ts): the first failing one, or null.
   * `ignoreUpgradeable` leaves out Upgradeable=False (an admin gate not acknowledged yet sets it).
   */
  hopGate: (from: string, hop: EusHop, ignoreUpgradeable: boolean) => { reason: LifecycleReason; message: string } | null;
}

function timeoutOf(p: EusProcedureProgress, now: number, ms: number): boolean {
  return p.phaseSince !== null && now > p.phaseSince + ms;
}

/** The pools we paused that do not read `paused` yet (a pool deleted since is nothing to wait for). */
function poolsNotYet(input: EusStepInput, progress: EusProcedureProgress, paused: boolean): string[] {
  const pools = new Map((input.cluster.machineConfigPools ?? []).map((p) => [p.name, p]));
  return (progress.pausedByUs ?? []).filter((name) => pools.has(name) && pools.get(name)!.paused !== paused);
}

/** Waits for `pools`, asking again for each with its own key (the provider re-reads: nothing is written twice). */
function askPoolsAgain(
  progress: EusProcedureProgress,
  pools: readonly string[],
  paused: boolean,
  key: (pool: string) => string,
): EusOutcome {
  return {
    kind: 'wait',
    progress,
    effects: pools.map((pool) => ({ kind: 'set-pool-paused', idempotencyKey: key(pool), pool, paused })),
    notes: [],
  };
}

/** `pausing-workers`: wait until every pool we pause reads paused; ask again (same key) for those that do not. */
export function stepPausing(input: EusStepInput, progress: EusProcedureProgress): EusOutcome {
  const { now, attemptId } = input;
  const ours = progress.pausedByUs ?? [];
  const notYet = poolsNotYet(input, progress, true);
  if (notYet.length === 0) {
    const left = progress.pausedBefore.length ? `; left as the admin paused them: ${names(progress.pausedBefore)}` : '';
    return {
      kind: 'next',
      progress: { ...progress, pausedAt: now, phaseSince: now },
      effects: [],
      notes: [],
      message: `paused worker pools: ${names(ours)}${left}`,
    };
  }
  if (timeoutOf(progress, now, input.upgradeTimeoutMs))
    return {
      kind: 'failed',
      reason: 'UPGRADE_TIMEOUT',
      message: `worker pools ${names(notYet)} not paused ${formatDuration(input.upgradeTimeoutMs)} after the request; nothing was upgraded${pausedPoolsNote(progress)}`,
      progress,
      notes: [],
      timedOut: true,
    };
  return askPoolsAgain(progress, notYet, true, (pool) => pauseKey(attemptId, pool));
}

/** Does the provider hold (or went through) this hop? */
function providerHasHop(c: ObservedCluster, hop: EusHop): boolean {
  return c.currentUpgrade?.version === hop.version || c.lastUpgrade?.version === hop.version || c.version === hop.version;
}

/**
 * `control-plane-hop`: each hop in turn — before the second, the admin acknowledgements it needs
 * (each once, `admin-acks` in openshift-config) once the hop's own gates pass (no removed API in
 * use, healthy, offered), then its start (a channel switch first when needed); each completion is
 * noted. The last hop's completion leaves for `unpausing-workers`.
 */
export function stepControlPlane(input: EusStepInput, progress: EusProcedureProgress): EusOutcome {
  const { cluster: c, now, attemptId } = input;
  const notes: string[] = [];
  let p = progress;
  const i = p.hops.findIndex((h) => h.doneAt === null);
  if (i < 0) return { kind: 'next', progress: p, effects: [], notes, message: 'control plane upgraded' };
  const hop = p.hops[i]!;
  const label = `hop ${i + 1}/${p.hops.length}`;
  const setHop = (patch: Partial<EusHop>) => {
    p = { ...p, hops: p.hops.map((h, k) => (k === i ? { ...h, ...patch } : h)) };
  };
  const from = i === 0 ? p.route[0]! : p.hops[i - 1]!.version;
  const timedOut = timeoutOf(p, now, input.upgradeTimeoutMs);
  const fail = (reason: LifecycleReason, message: string, isTimeout = false): EusOutcome => ({
    kind: 'failed',
    reason,
    message: `${message}${pausedPoolsNote(p)}`,
    progress: p,
    notes,
    timedOut: isTimeout,
  });
  const hold = (message: string): EusOutcome => {
    if (timedOut)
      return fail(
        'UPGRADE_TIMEOUT',
        `${label} to ${hop.version} not started ${formatDuration(input.upgradeTimeoutMs)} after ${from} completed: ${message}`,
        true,
      );
    if (p.holding !== message) {
      notes.push(`${label} to ${hop.version} waits: ${message}`);
      p = { ...p, holding: message };
    }
    return { kind: 'wait', progress: p, effects: [], notes };
  };
  const startEffect = (): EusEffect => ({
    kind: 'start-hop',
    idempotencyKey: hopStartKey(attemptId, i),
    hop: i,
    version: hop.version,
    channel: hop.channel !== null && c.channel !== hop.channel ? { idempotencyKey: hopChannelKey(attemptId, i), name: hop.channel } : null,
    at: now,
  });

  if (hop.requestedAt === null) {
    if (i > 0) {
      const gate = input.hopGate(from, hop, true);
      if (gate) return hold(`${gate.reason}: ${gate.message}`);
      const effects: EusEffect[] = [];
      for (const name of adminGatesToAcknowledge(from, hop.version, c.adminGates)) {
        const ack = p.acks.find((a) => a.gate === name);
        if (ack?.confirmedAt != null) continue;
        if (!ack) {
          p = { ...p, acks: [...p.acks, { gate: name, requestedAt: now, confirmedAt: null }] };
          notes.push(
            `acknowledging admin gate ${name} (openshift-config/admin-acks) for ${from} → ${hop.version}: no API it removes is in use`,
          );
        }
        effects.push({ kind: 'admin-ack', idempotencyKey: adminAckKey(attemptId, name), gate: name });
      }
      if (effects.length > 0) return { kind: 'wait', progress: p, effects, notes };
      // the cluster-version operator re-evaluates Upgradeable after the acknowledgement
      const upgradeable = input.hopGate(from, hop, false);
      if (upgradeable) return hold(`${upgradeable.reason}: ${upgradeable.message}`);
    }
    const effect = startEffect();
    setHop({ requestedAt: now });
    p = { ...p, phaseSince: now, holding: null };
    const switching = effect.kind === 'start-hop' && effect.channel ? `; the channel is switched to ${effect.channel.name} first` : '';
    notes.push(`${label}: start of the control-plane upgrade ${from} → ${hop.version} requested${switching}`);
    return { kind: 'wait', progress: p, effects: [effect], notes };
  }
  if (hop.confirmedAt === null) {
    if (providerHasHop(c, hop)) setHop({ confirmedAt: now });
    else if (timedOut) return fail('UPGRADE_TIMEOUT', `${label} to ${hop.version}: the provider never took the start`, true);
    // asked before and not seen at the provider: the call never reached it (or failed); same key again
    else return { kind: 'wait', progress: p, effects: [startEffect()], notes };
  }
  const last = c.lastUpgrade?.version === hop.version ? c.lastUpgrade : null;
  const current = c.currentUpgrade?.version === hop.version ? c.currentUpgrade : null;
  if (last?.state === 'failed')
    return fail('PROVIDER_FAILED', `${label} to ${hop.version}: ${last.message ?? 'the provider reports the upgrade failed'}`);
  if (last?.state === 'completed' || (!current && c.version === hop.version)) {
    setHop({ doneAt: now, runningAt: p.hops[i]!.runningAt ?? now });
    p = { ...p, phaseSince: now, holding: null };
    const workers = (p.pausedByUs ?? []).length ? `; worker pools ${names(p.pausedByUs ?? [])} stay on ${p.route[0]} while paused` : '';
    if (i === p.hops.length - 1)
      return { kind: 'next', progress: p, effects: [], notes, message: `control plane at ${hop.version} (${label} completed)${workers}` };
    notes.push(`control plane at ${hop.version} (${label} completed)${workers}`);
    // the next hop may be judged in this same step
    const more = stepControlPlane(input, p);
    return { ...more, notes: [...notes, ...more.notes] };
  }
  if (timedOut)
    return fail(
      'UPGRADE_TIMEOUT',
      `${label} to ${hop.version} not completed ${formatDuration(input.upgradeTimeoutMs)} after its start`,
      true,
    );
  if (current?.state === 'started' && p.hops[i]!.runningAt === null) {
    setHop({ runningAt: now });
    notes.push(`${label}: the provider reports the control-plane upgrade to ${hop.version} running`);
  }
  return { kind: 'wait', progress: p, effects: [], notes };
}

/** The unpause of the pools we paused (never those the admin paused). */
export function beginUnpause(
  attemptId: number,
  progress: EusProcedureProgress,
  pools: readonly MachineConfigPoolReading[],
  now: number,
): { progress: EusProcedureProgress; effects: EusEffect[] } {
  const byName = new Map(pools.map((p) => [p.name, p]));
  const still = (progress.pausedByUs ?? []).filter((name) => byName.get(name)?.paused === true);
  return {
    progress: { ...progress, unpauseRequestedAt: now, phaseSince: now },
    effects: still.map((pool) => ({ kind: 'set-pool-paused', idempotencyKey: unpauseKey(attemptId, pool), pool, paused: false })),
  };
}

/** `unpausing-workers`: wait until the pools we paused read unpaused (asking again, same key, for the others). */
export function stepUnpausing(input: EusStepInput, progress: EusProcedureProgress): EusOutcome {
  const ours = progress.pausedByUs ?? [];
  const notYet = poolsNotYet(input, progress, false);
  if (notYet.length === 0)
    return {
      kind: 'next',
      progress: { ...progress, unpausedAt: input.now, phaseSince: input.now },
      effects: [],
      notes: [],
      message: `unpaused worker pools: ${names(ours)}${progress.pausedBefore.length ? ` (left paused as the admin paused them: ${names(progress.pausedBefore)})` : ''}; watching the workers roll out to ${progress.route.at(-1)} (timeout ${formatDuration(input.workerRolloutTimeoutMs)})`,
    };
  if (timeoutOf(progress, input.now, input.upgradeTimeoutMs))
    return {
      kind: 'failed',
      reason: 'UPGRADE_TIMEOUT',
      message: `worker pools ${names(notYet)} still paused ${formatDuration(input.upgradeTimeoutMs)} after the unpause was asked`,
      progress,
      notes: [],
      timedOut: true,
    };
  return askPoolsAgain(progress, notYet, false, (pool) => unpauseKey(input.attemptId, pool));
}

const poolCount = (p: MachineConfigPoolReading) => `${p.name} ${p.updatedMachineCount}/${p.machineCount}`;

/** A pool has rolled out: Updated, not Updating, every machine updated. */
export const poolRolledOut = (p: MachineConfigPoolReading) =>
  p.updated && !p.updating && p.updatedMachineCount === p.machineCount && p.degradedMachineCount === 0;

/** `workers-rolling`: every pool but those the admin keeps paused rolled out; a degraded pool fails it. */
export function stepRollout(input: EusStepInput, progress: EusProcedureProgress): EusOutcome {
  const watched = (input.cluster.machineConfigPools ?? []).filter((p) => !progress.pausedBefore.includes(p.name));
  const degraded = watched.find((p) => p.degraded || p.degradedMachineCount > 0);
  if (degraded)
    return {
      kind: 'failed',
      reason: 'WORKER_POOL_DEGRADED',
      message: `MachineConfigPool ${degraded.name} is Degraded during the worker rollout (${degraded.degradedMachineCount} degraded of ${degraded.machineCount})${degraded.message ? `: ${degraded.message}` : ''}`,
      progress,
      notes: [],
      timedOut: false,
    };
  const rolling = watched.filter((p) => !poolRolledOut(p));
  if (rolling.length === 0)
    return {
      kind: 'next',
      progress: { ...progress, rolledOutAt: input.now, phaseSince: input.now },
      effects: [],
      notes: [],
      message: `workers rolled out to ${progress.route.at(-1)}: ${watched.map(poolCount).join(', ') || 'no pools'}`,
    };
  if (timeoutOf(progress, input.now, input.workerRolloutTimeoutMs))
    return {
      kind: 'failed',
      reason: 'WORKER_ROLLOUT_TIMEOUT',
      message: `worker pools not rolled out ${formatDuration(input.workerRolloutTimeoutMs)} after the unpause: ${rolling.map(poolCount).join(', ')}`,
      progress,
      notes: [],
      timedOut: false,
    };
  return { kind: 'wait', progress, effects: [], notes: [] };
}

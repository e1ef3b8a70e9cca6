/**
 * A fake provider for tests and the crash test: its whole state is an append-only list of
 * trigger/cancel records (in memory, or lines of a file that survives SIGKILL), replayed on every
 * read. A `startUpgrade` is a trigger record whose upgrade starts at its `at` (kept as nextRun)
 * and completes `durationMs` later. With `installPlans`, clusters carry OLM InstallPlans: an
 * `approve` record approves one, and it is Complete `installMs` later. With `pools`, clusters have a
 * master and a worker MachineConfigPool: a `pool` record pauses or unpauses one (a paused worker
 * pool stays on the release it ran; unpaused, it rolls to the cluster's in `rolloutMs`), an `ack`
 * record acknowledges an admin gate. Reads never write.
 */
import type { ClusterInhibitorFacts } from '@/server/domain/lifecycle/inhibitors';
import { inProcess } from './in-process';
import fs from 'node:fs';
import { compareVersions } from '@/server/domain/version/version';
import { healthFromIssues, summarizeHealth } from './health-reading';
import type { ClusterDiscovery, ClusterSnapshot, FleetProvider, InstallPlanReading, PendingVersionGate, ProviderUpgrade } from './types';
import { ProviderError } from './types';
import type { MachineConfigPoolReading } from '@/server/domain/lifecycle/observation';

export interface FakeCluster {
  externalId: string;
  name: string;
  version: string;
  channel: string;
  /** every release the channel will ever offer; those newer than the cluster's version are offered */
  releases: string[];
  healthIssues?: string[];
  /** reported as is (mutable: a test changes it between ticks) */
  discovery?: ClusterDiscovery;
  pendingVersionGates?: PendingVersionGate[];
  /** installed operators and removed-API use, as the Kubernetes provider reports them */
  inhibitors?: ClusterInhibitorFacts;
  /** OLM InstallPlans as first read (mutable: a test adds or changes them between ticks); approval comes from records */
  installPlans?: InstallPlanReading[];
}

export type FakeRecord =
  | { op: 'trigger'; cluster: string; version: string; nextRun: string; at: string; key: string }
  | { op: 'cancel'; cluster: string; version: string; at: string; key: string }
  | { op: 'approve'; cluster: string; namespace: string; name: string; at: string; key: string }
  | { op: 'channel'; cluster: string; channel: string; at: string }
  | { op: 'pool'; cluster: string; pool: string; paused: boolean; at: string }
  | { op: 'ack'; cluster: string; gate: string; at: string };

export interface FakeProviderOptions {
  clusters: FakeCluster[];
  /** file to append records to (one JSON line each); in memory when absent */
  logFile?: string;
  durationMs?: number;
  /** like OCM's 5 minutes: a start less than this ahead is refused */
  minStartNoticeMs?: number;
  /** like OCM's 10 minutes: the lifecycle tells it this long before the slot */
  startLeadMs?: number;
  /** make calls fail, e.g. to test retries */
  failWith?: (
    op: 'list' | 'read' | 'schedule' | 'cancel' | 'list-installplans' | 'approve' | 'channel' | 'pool' | 'ack',
    cluster?: string,
  ) => Error | undefined;
  /** the provider has OLM InstallPlans (as Kubernetes does); absent: none (as OCM) */
  installPlans?: boolean;
  /** an approved InstallPlan is Complete this long after its approval (default 5 min) */
  installMs?: number;
  /** the clusters have MachineConfigPools (master, worker) and admin-acks, as Kubernetes does; absent: none (as OCM) */
  pools?: boolean;
  /** an unpaused worker pool behind the control plane rolls this long (default 20 min) */
  rolloutMs?: number;
}

export interface FakeProvider extends FleetProvider {
  records(): FakeRecord[];
  calls: { op: string; cluster?: string; version?: string }[];
}

export function createFakeProvider(opts: FakeProviderOptions): FakeProvider {
  const memory: FakeRecord[] = [];
  const durationMs = opts.durationMs ?? 30 * 60_000;
  const calls: FakeProvider['calls'] = [];
  const records = (): FakeRecord[] => {
    if (!opts.logFile) return [...memory];
    if (!fs.existsSync(opts.logFile)) return [];
    return fs
      .readFileSync(opts.logFile, 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .flatMap((l) => {
        try {
          return [JSON.parse(l) as FakeRecord];
        } catch {
          return []; // a torn last line from a kill: the call did not complete
        }
      });
  };
  const append = (r: FakeRecord) => {
    if (opts.logFile) fs.appendFileSync(opts.logFile, `${JSON.stringify(r)}\n`);
    else memory.push(r);
  };
  const stateOf = (c: FakeCluster, nowMs: number, all: FakeRecord[] = records()) => {
    let version = c.version;
    let channel = c.channel;
    let current: ProviderUpgrade | null = null;
    let last: ClusterSnapshot['lastUpgrade'] = null;
    const settle = (atMs: number) => {
      if (!current) return;
      const start = Date.parse(current.nextRun);
      if (start + durationMs <= atMs) {
        last = {
          fromVersion: version,
          version: current.version,
          state: 'completed',
          startedAt: current.nextRun,
          completedAt: new Date(start + durationMs).toISOString(),
        };
        version = current.version;
        current = null;
      }
    };
    for (const r of all) {
      if (r.cluster !== c.name || r.op === 'approve' || r.op === 'pool' || r.op === 'ack') continue;
      settle(Date.parse(r.at));
      if (r.op === 'channel') channel = r.channel;
      else if (r.op === 'trigger') current = { version: r.version, nextRun: r.nextRun, state: 'scheduled' };
      else if (current && current.version === r.version && Date.parse(current.nextRun) > Date.parse(r.at)) current = null;
    }
    settle(nowMs);
    const cur = current;
    const live = cur && Date.parse(cur.nextRun) <= nowMs ? { ...cur, state: 'started' as const, startedAt: cur.nextRun } : cur;
    return { version, channel, current: live, last: last as ClusterSnapshot['lastUpgrade'] };
  };
  // Fleets share release lists: the newer releases of a version are worked out once per list.
  const newer = new WeakMap<string[], Map<string, string[]>>();
  const newerReleases = (releases: string[], version: string): string[] => {
    let byVersion = newer.get(releases);
    if (!byVersion) newer.set(releases, (byVersion = new Map<string, string[]>()));
    let list = byVersion.get(version);
    if (!list) byVersion.set(version, (list = releases.filter((v) => compareVersions(v, version) > 0)));
    return [...list];
  };
  const clustersByName = new Map(opts.clusters.map((c) => [c.name, c]));
  const find = (name: string) => {
    const c = clustersByName.get(name);
    if (!c) throw new ProviderError('fake', `unknown cluster ${name}`, 404);
    return c;
  };
  const snapshotOf = (c: FakeCluster, nowMs: number, all?: FakeRecord[]): ClusterSnapshot => {
    const s = stateOf(c, nowMs, all);
    const health = healthFromIssues(c.healthIssues ?? []);
    return {
      externalId: c.externalId,
      name: c.name,
      version: s.version,
      channel: s.channel,
      availableUpgrades: newerReleases(c.releases, s.version),
      conditionalUpgrades: [],
      upgradeable: { status: 'True' },
      health,
      ...summarizeHealth(health),
      currentUpgrade: s.current,
      lastUpgrade: s.last,
      ...(c.discovery ? { discovery: c.discovery } : {}),
      ...(c.pendingVersionGates ? { pendingVersionGates: c.pendingVersionGates } : {}),
      ...(c.inhibitors ? { inhibitors: c.inhibitors } : {}),
      ...(opts.pools ? { machineConfigPools: poolsOf(c, s.version, nowMs, all ?? records()) } : {}),
    };
  };
  const installMs = opts.installMs ?? 5 * 60_000;
  const rolloutMs = opts.rolloutMs ?? 20 * 60_000;
  /**
   * master follows the control plane; worker is paused (on the release it ran when paused) or
   * rolling to the cluster's release since its unpause
   */
  function poolsOf(c: FakeCluster, version: string, nowMs: number, all: FakeRecord[]): MachineConfigPoolReading[] {
    let paused: { version: string } | null = null;
    let rollingSince: number | null = null;
    for (const r of all) {
      if (r.cluster !== c.name || r.op !== 'pool' || r.pool !== 'worker' || Date.parse(r.at) > nowMs) continue;
      if (r.paused) paused = { version: stateOf(c, Date.parse(r.at), all).version };
      else {
        if (paused) rollingSince = Date.parse(r.at);
        paused = null;
      }
    }
    const worker = paused
      ? { paused: true, updatedMachineCount: paused.version === version ? 3 : 0, updating: false }
      : rollingSince !== null && nowMs < rollingSince + rolloutMs
        ? { paused: false, updatedMachineCount: 1, updating: true }
        : { paused: false, updatedMachineCount: 3, updating: false };
    const pool = (name: string, w: { paused: boolean; updatedMachineCount: number; updating: boolean }): MachineConfigPoolReading => ({
      name,
      master: name === 'master',
      paused: w.paused,
      machineCount: 3,
      updatedMachineCount: w.updatedMachineCount,
      degradedMachineCount: 0,
      updated: w.updatedMachineCount === 3 && !w.updating,
      updating: w.updating,
      degraded: false,
    });
    return [pool('master', { paused: false, updatedMachineCount: 3, updating: false }), pool('worker', worker)];
  }
  const pools: Pick<FleetProvider, 'setMachineConfigPoolPaused' | 'acknowledgeAdminGate'> = opts.pools
    ? {
        setMachineConfigPoolPaused(ref, pool, paused, now) {
          return inProcess(() => {
            calls.push({ op: paused ? 'pause' : 'unpause', cluster: ref.name, version: pool });
            const err = opts.failWith?.('pool', ref.name);
            if (err) throw err;
            const c = find(ref.name);
            const current = snapshotOf(c, now.getTime()).machineConfigPools?.find((p) => p.name === pool);
            if (!current) throw new ProviderError('fake', `machineconfigpools.machineconfiguration.openshift.io "${pool}" not found`, 404);
            if (current.paused === paused) return 'already-set' as const;
            append({ op: 'pool', cluster: ref.name, pool, paused, at: now.toISOString() });
            return 'set' as const;
          });
        },
        acknowledgeAdminGate(ref, gate, now) {
          return inProcess(() => {
            calls.push({ op: 'ack', cluster: ref.name, version: gate });
            const err = opts.failWith?.('ack', ref.name);
            if (err) throw err;
            find(ref.name);
            if (records().some((r) => r.op === 'ack' && r.cluster === ref.name && r.gate === gate)) return 'already-set' as const;
            append({ op: 'ack', cluster: ref.name, gate, at: now.toISOString() });
            return 'set' as const;
          });
        },
      }
    : {};
  /** the cluster's plans with the approvals recorded up to `nowMs` applied */
  const plansOf = (c: FakeCluster, nowMs: number): InstallPlanReading[] => {
    const approvals = records().filter((r): r is Extract<FakeRecord, { op: 'approve' }> => r.op === 'approve' && r.cluster === c.name);
    return (c.installPlans ?? []).map((p) => {
      const approval = approvals.find((r) => r.namespace === p.namespace && r.name === p.name);
      if (!approval) return { ...p };
      const done = Date.parse(approval.at) + installMs <= nowMs;
      return { ...p, approved: true, phase: p.phase === 'RequiresApproval' ? (done ? 'Complete' : 'Installing') : p.phase };
    });
  };
  const olm: Pick<FleetProvider, 'listInstallPlans' | 'approveInstallPlan'> = opts.installPlans
    ? {
        listInstallPlans(ref, now) {
          return inProcess(() => {
            calls.push({ op: 'list-installplans', cluster: ref.name });
            const err = opts.failWith?.('list-installplans', ref.name);
            if (err) throw err;
            return plansOf(find(ref.name), now.getTime());
          });
        },
        approveInstallPlan(req, now) {
          return inProcess(() => {
            calls.push({ op: 'approve', cluster: req.name, version: `${req.namespace}/${req.installPlan}` });
            const err = opts.failWith?.('approve', req.name);
            if (err) throw err;
            const plan = plansOf(find(req.name), now.getTime()).find((p) => p.namespace === req.namespace && p.name === req.installPlan);
            if (!plan) throw new ProviderError('fake', `installplans.operators.coreos.com "${req.installPlan}" not found`, 404);
            if (plan.approved) return 'already-approved' as const;
            append({
              op: 'approve',
              cluster: req.name,
              namespace: req.namespace,
              name: req.installPlan,
              at: now.toISOString(),
              key: req.idempotencyKey,
            });
            return 'approved' as const;
          });
        },
      }
    : {};
  return {
    ...olm,
    ...pools,
    name: 'fake',
    calls,
    records,
    startLeadMs: opts.startLeadMs ?? 0,
    minStartNoticeMs: opts.minStartNoticeMs ?? 0,
    observe(now) {
      return inProcess(() => {
        calls.push({ op: 'list' });
        const err = opts.failWith?.('list');
        if (err) throw err;
        const byCluster = new Map<string, FakeRecord[]>();
        for (const r of records()) {
          const list = byCluster.get(r.cluster);
          if (list) list.push(r);
          else byCluster.set(r.cluster, [r]);
        }
        const snapshot: Awaited<ReturnType<FleetProvider['observe']>> = { clusters: [], errors: [] };
        for (const c of opts.clusters) {
          const readErr = opts.failWith?.('read', c.name);
          if (readErr) snapshot.errors.push({ externalId: c.externalId, name: c.name, message: readErr.message });
          else snapshot.clusters.push(snapshotOf(c, now.getTime(), byCluster.get(c.name) ?? []));
        }
        return snapshot;
      });
    },
    observeCluster(ref, now) {
      return inProcess(() => {
        const err = opts.failWith?.('read', ref.name);
        if (err) throw err;
        return snapshotOf(find(ref.name), now.getTime());
      });
    },
    startUpgrade(req, now) {
      return inProcess(() => {
        calls.push({ op: 'schedule', cluster: req.name, version: req.version });
        const err = opts.failWith?.('schedule', req.name);
        if (err) throw err;
        if (req.at.getTime() < now.getTime() + (opts.minStartNoticeMs ?? 0))
          throw new ProviderError('fake', `${req.name}: a start at ${req.at.toISOString()} has less notice than the provider takes`);
        const s = stateOf(find(req.name), now.getTime());
        if (s.current) throw new Error(`${req.name} already has an upgrade to ${s.current.version}`);
        append({
          op: 'trigger',
          cluster: req.name,
          version: req.version,
          nextRun: req.at.toISOString(),
          at: now.toISOString(),
          key: req.idempotencyKey,
        });
      });
    },
    setChannel(ref, channel, now) {
      return inProcess(() => {
        calls.push({ op: 'channel', cluster: ref.name, version: channel });
        const err = opts.failWith?.('channel', ref.name);
        if (err) throw err;
        if (stateOf(find(ref.name), now.getTime()).channel === channel) return 'already-set' as const;
        append({ op: 'channel', cluster: ref.name, channel, at: now.toISOString() });
        return 'set' as const;
      });
    },
    cancelUpgrade(req, now) {
      return inProcess(() => {
        calls.push({ op: 'cancel', cluster: req.name, version: req.version });
        const err = opts.failWith?.('cancel', req.name);
        if (err) throw err;
        append({ op: 'cancel', cluster: req.name, version: req.version, at: now.toISOString(), key: req.idempotencyKey });
      });
    },
  };
}

/**
 * The default provider: an embedded simulated fleet (the demo fleet). Its state lives in the
 * database: the clusters table (what each cluster runs and what upgrade it has) plus two
 * settings, 'simulator.clock' (server/fleet-clock.ts format) and 'simulator.releases' (releases
 * of the real stable-4.13 graph not yet published, with their simulated publication times).
 *
 * Everything that happens is a deterministic function of (cluster, upgrade, clock), so a
 * snapshot taken twice at the same instant is the same, and a crash loses nothing: upgrades go
 * scheduled → started → control plane → workers → completed in 40 min to 2 h, and held-back
 * releases appear on their channels over time. The failure modes a real fleet has are there too
 * (rates below): an upgrade fails with a reason, or gets stuck and never completes; a
 * ClusterOperator turns Degraded or a critical alert fires for a few hours (structured health);
 * a published release is withdrawn again (it leaves availableUpgrades two days later).
 * Most clusters run operators with manual InstallPlan approval: each version a cluster runs has
 * pending plans (simulatedInstallPlans) until approved; approvals are stored in the setting
 * 'simulator.installplan-approvals' and a plan is Complete a few minutes after its approval.
 * Each cluster has a master and a worker MachineConfigPool, Updated unless the EUS-to-EUS procedure
 * paused the workers (setting 'simulator.pools'): a paused pool stays on the release it ran when
 * paused (Updated=False once the control plane moved on), and after its unpause rolls to the
 * cluster's release over WORKER_ROLLOUT_MS, one machine at a time. Admin-gate acknowledgements are
 * kept in 'simulator.admin-acks'.
 * Reading never writes: the simulated state only changes through startUpgrade, cancelUpgrade,
 * approveInstallPlan, setMachineConfigPoolPaused and acknowledgeAdminGate.
 */
import type { ClusterInhibitorFacts, InstalledOperator, RemovedApiUse } from '@/server/domain/lifecycle/inhibitors';
import { parseVersion } from '@/server/domain/version/version';
import { formatInstantToSecond } from '@/server/domain/plan/time';
import { inProcess } from './in-process';
import fs from 'node:fs';
import path from 'node:path';
import { compareVersions, isSemver } from '@/server/domain/version/version';
import type { Db } from '@/db/open-database';
import { DEFAULT_SIMULATOR_SPEED, getEnv } from '@/server/env';
import { availableUpdates, type DemoGraphDocument } from '@/server/demo/demo-fleet';
import { SIMULATOR_CLOCK_KEY, simulatedNow, type SimulatorClockState } from '@/server/fleet-clock';
import {
  listSimulatedClusters,
  findSimulatedCluster,
  readSetting,
  setSimulatedChannel,
  setSimulatedUpgrade,
  writeSetting,
  type SimulatedClusterRow,
} from '@/server/repositories/scheduler-repository';
import type {
  AlertReading,
  ClusterDiscovery,
  ClusterRef,
  ClusterSnapshot,
  FleetProvider,
  InstallPlanReading,
  OperatorReading,
  ProviderUpgrade,
} from './types';
import type { MachineConfigPoolReading } from '@/server/domain/lifecycle/observation';
import { ProviderError } from './types';
import { healthFromIssues, summarizeHealth } from './health-reading';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
export const SIMULATOR_RELEASES_KEY = 'simulator.releases';
export const SIMULATOR_APPROVALS_KEY = 'simulator.installplan-approvals';
export const SIMULATOR_POOLS_KEY = 'simulator.pools';
export const SIMULATOR_ADMIN_ACKS_KEY = 'simulator.admin-acks';
/** how long a simulated worker pool takes to roll after its unpause */
export const WORKER_ROLLOUT_MS = 45 * MINUTE_MS;
const SIMULATED_POOLS = ['master', 'worker'] as const;

/** per simulated cluster (externalId), per pool: paused since (on the release it ran), or rolling since its unpause */
export type SimulatorPools = Record<
  string,
  Record<string, { paused: true; since: string; version: string } | { paused: false; rollingFrom: string; version: string }>
>;

/** The pools of a simulated cluster running `version` (the control plane's) at `nowMs`. */
export function simulatedPools(
  version: string,
  nodeCount: number,
  pools: SimulatorPools[string] | undefined,
  nowMs: number,
): MachineConfigPoolReading[] {
  return SIMULATED_POOLS.map((name) => {
    const machineCount = name === 'master' ? 3 : Math.max(1, nodeCount - 3);
    const state = pools?.[name];
    let updatedMachineCount = machineCount;
    let updating = false;
    if (state?.paused) {
      if (state.version !== version) updatedMachineCount = 0;
    } else if (state && !state.paused) {
      const progress = (nowMs - Date.parse(state.rollingFrom)) / WORKER_ROLLOUT_MS;
      if (progress < 1) {
        updatedMachineCount = Math.min(machineCount - 1, Math.floor(Math.max(0, progress) * machineCount));
        updating = true;
      }
    }
    return {
      name,
      master: name === 'master',
      paused: state?.paused === true,
      machineCount,
      updatedMachineCount,
      degradedMachineCount: 0,
      updated: updatedMachineCount === machineCount && !updating,
      updating,
      degraded: false,
    };
  });
}
/** share of clusters whose operators have manual InstallPlan approval */
const MANUAL_OLM_RATE = 0.7;

/** approved InstallPlans per simulated cluster (externalId): namespace, name and when */
export type SimulatorApprovals = Record<string, { namespace: string; name: string; at: string }[]>;
/** simulated days between two published releases */
const PUBLISH_EVERY_DAYS = 3.5;
const FAILURE_RATE = 0.05;
/** upgrades that stop making progress and never complete (the lifecycle's timeout catches them) */
const STUCK_RATE = 0.03;
const FLAP_RATE = 0.03;
const FLAP_BUCKET_MS = 6 * 3_600_000;
/** share of newly published releases withdrawn again, and when */
const WITHDRAW_RATE = 0.2;
const WITHDRAW_AFTER_DAYS = 2;

export interface SimulatorReleases {
  pending: { version: string; publishAt: string }[];
}

/** passing health problems, one per 6 h bucket for about 3% of clusters */
const FLAPS: (({ kind: 'alert' } & AlertReading) | ({ kind: 'operator' } & OperatorReading))[] = [
  { kind: 'alert', name: 'KubePersistentVolumeFillingUp', namespace: 'openshift-monitoring', severity: 'critical' },
  { kind: 'operator', name: 'ingress', degraded: true, available: true, message: 'router pods restarting (simulated flap)' },
  { kind: 'alert', name: 'etcdHighFsyncDurations', namespace: 'openshift-etcd', severity: 'critical' },
  {
    kind: 'operator',
    name: 'authentication',
    degraded: false,
    available: false,
    message: 'oauth-openshift pods not ready (simulated flap)',
  },
];
const FAILURE_REASONS = [
  'machine-config operator Degraded: worker pool did not roll out (simulated)',
  'Cluster operator etcd is degraded: EtcdMembersDegraded (simulated)',
  'Could not update deployment openshift-ingress-operator/ingress-operator: timed out (simulated)',
];
const STUCK_MESSAGE = 'Unable to apply: the worker MachineConfigPool is not progressing: a node cannot be drained (simulated)';

/** FNV-1a hash of a string to [0, 1): the simulator's only source of "randomness". */
export function hashUnit(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) / 4294967296;
}

let cachedGraph: DemoGraphDocument | undefined;
export function loadDemoGraph(): DemoGraphDocument {
  cachedGraph ??= JSON.parse(
    fs.readFileSync(path.join(process.cwd(), 'server', 'demo', 'data', 'stable-4.13.json'), 'utf8'),
  ) as DemoGraphDocument;
  return cachedGraph;
}

let cachedOlderGraph: DemoGraphDocument | undefined;
/** the union-4.6-4.9 graph the demo also stores: what the demo's EUS cluster is offered */
export function loadOlderDemoGraph(): DemoGraphDocument {
  cachedOlderGraph ??= JSON.parse(
    fs.readFileSync(path.join(process.cwd(), 'server', 'demo', 'data', 'union-4.6-4.9.json'), 'utf8'),
  ) as DemoGraphDocument;
  return cachedOlderGraph;
}

/** upgrade duration in ms: 40 min to 2 h, fixed per (cluster, target, start) */
export function upgradeDurationMs(externalId: string, version: string, startedAt: string): number {
  return (40 + hashUnit(`${externalId}|${version}|${startedAt}|d`) * 80) * MINUTE_MS;
}

export async function getSimulatorClock(db: Db): Promise<SimulatorClockState | undefined> {
  return await readSetting<SimulatorClockState>(db, SIMULATOR_CLOCK_KEY);
}

/**
 * Creates the simulator's clock and release schedule when absent: the clock starts at real time,
 * and graph releases newer than anything the fleet runs or is offered are published one by one.
 */
export async function ensureSimulatorState(db: Db, realNow: Date, speed = getEnv().simulatorSpeed): Promise<SimulatorClockState> {
  let clock = await getSimulatorClock(db);
  if (!clock) {
    clock = {
      simAnchor: realNow.toISOString(),
      realAnchor: realNow.toISOString(),
      speed,
    };
    await writeSetting(db, SIMULATOR_CLOCK_KEY, clock, realNow);
  }
  if (!(await readSetting<SimulatorReleases>(db, SIMULATOR_RELEASES_KEY))) {
    const graph = loadDemoGraph();
    const known = new Set<string>();
    for (const c of await listSimulatedClusters(db)) {
      known.add(c.version);
      for (const v of c.availableUpgrades) known.add(v);
      if (c.currentUpgrade) known.add(c.currentUpgrade.version);
    }
    const newest = [...known]
      .filter((v) => isSemver(v))
      .sort(compareVersions)
      .pop();
    const simNow = simulatedNow(clock, realNow).getTime();
    const pending = newest
      ? graph.nodes
          .map((n) => n.version)
          .filter((v) => isSemver(v) && compareVersions(v, newest) > 0)
          .sort(compareVersions)
          .map((version, i) => ({ version, publishAt: formatInstantToSecond(simNow + (i + 1) * PUBLISH_EVERY_DAYS * DAY_MS) }))
      : [];
    await writeSetting(db, SIMULATOR_RELEASES_KEY, { pending } satisfies SimulatorReleases, realNow);
  }
  return clock;
}

type StoredClock = SimulatorClockState & { resumeSpeed?: number };

/** Re-anchors the clock so simulated time is continuous across speed changes (0 = paused). */
export async function setSimulatorSpeed(db: Db, speed: number, realNow: Date): Promise<StoredClock> {
  const clock: StoredClock = await ensureSimulatorState(db, realNow);
  const next: StoredClock = {
    simAnchor: simulatedNow(clock, realNow).toISOString(),
    realAnchor: realNow.toISOString(),
    speed,
    resumeSpeed: speed > 0 ? speed : clock.speed > 0 ? clock.speed : (clock.resumeSpeed ?? DEFAULT_SIMULATOR_SPEED),
  };
  await writeSetting(db, SIMULATOR_CLOCK_KEY, next, realNow);
  return next;
}

export async function pauseSimulator(db: Db, realNow: Date): Promise<StoredClock> {
  return await setSimulatorSpeed(db, 0, realNow);
}

export async function resumeSimulator(db: Db, realNow: Date): Promise<StoredClock> {
  const clock: StoredClock = await ensureSimulatorState(db, realNow);
  return await setSimulatorSpeed(db, clock.speed > 0 ? clock.speed : (clock.resumeSpeed ?? DEFAULT_SIMULATOR_SPEED), realNow);
}

/** Moves simulated time forward by `ms` at once (e.g. "advance 1 day"). */
export async function advanceSimulator(db: Db, ms: number, realNow: Date): Promise<SimulatorClockState> {
  const clock = await ensureSimulatorState(db, realNow);
  const next = {
    ...clock,
    simAnchor: new Date(simulatedNow(clock, realNow).getTime() + ms).toISOString(),
    realAnchor: realNow.toISOString(),
  };
  await writeSetting(db, SIMULATOR_CLOCK_KEY, next, realNow);
  return next;
}

/** When a held-back release is withdrawn again (about 1 in 5, two days after publication), else null. */
export function withdrawnAt(release: { version: string; publishAt: string }): number | null {
  return hashUnit(`${release.version}|w`) < WITHDRAW_RATE ? Date.parse(release.publishAt) + WITHDRAW_AFTER_DAYS * DAY_MS : null;
}

/** Offered at `nowMs`: published and not withdrawn (releases the fleet already knew are always offered). */
function isOffered(releases: SimulatorReleases | undefined, version: string, nowMs: number): boolean {
  const p = releases?.pending.find((r) => r.version === version);
  if (!p) return true;
  const withdrawn = withdrawnAt(p);
  return Date.parse(p.publishAt) <= nowMs && (withdrawn === null || nowMs < withdrawn);
}

/** Targets the graph offers from `version` only conditionally (with a known risk). */
function conditionalUpdates(graph: DemoGraphDocument, version: string): string[] {
  const out = new Set<string>();
  for (const group of graph.conditionalEdges ?? []) for (const e of group.edges) if (e.from === version) out.add(e.to);
  return [...out].filter((v) => isSemver(v)).sort(compareVersions);
}

/** Whether an upgrade (cluster, target, start) is one of the stuck ones, and the progress it stops at. */
export function stuckAt(externalId: string, version: string, startedAt: string): number | null {
  const h = hashUnit(`${externalId}|${version}|${startedAt}|s`);
  return h < STUCK_RATE ? 0.5 + (h / STUCK_RATE) * 0.4 : null;
}

const TEAMS = ['payments', 'search', 'platform', 'identity', 'data'];
const TIERS = ['frontend', 'backend', 'data'];

/**
 * What a real provider would report of where and what the cluster is, for the demo: the seed's
 * region and node count, AWS (the seed's regions are AWS'), and labels as an OCM subscription
 * would carry them: `env` (prod, stage, dev or integration, from the sector the demo put it in),
 * `region`, and a `team` and a `tier` fixed per cluster — enough for the Fleet's selector filter,
 * a labelled exclusion and a selector sector to show something.
 */
export function simulatedDiscovery(row: Pick<SimulatedClusterRow, 'externalId' | 'region' | 'nodeCount' | 'sector'>): ClusterDiscovery {
  const sector = row.sector ?? '';
  const env = /prod/.test(sector) ? 'prod' : /stag/.test(sector) ? 'stage' : /dev/.test(sector) ? 'dev' : 'integration';
  return {
    labels: {
      env,
      ...(row.region ? { region: row.region } : {}),
      team: TEAMS[Math.floor(hashUnit(`${row.externalId}|team`) * TEAMS.length)] ?? TEAMS[0]!,
      tier: TIERS[Math.floor(hashUnit(`${row.externalId}|tier`) * TIERS.length)] ?? TIERS[0]!,
    },
    cloud: 'aws',
    region: row.region || null,
    nodeCount: row.nodeCount,
  };
}

/**
 * What the Kubernetes provider would read of the cluster's operators and removed-API use, for the
 * demo (fixed per cluster and minor): every cluster runs cert-manager (no OpenShift limit); about a
 * third run OpenShift Logging, whose release supports up to the next minor; clusters on 4.12 run
 * an Elasticsearch operator that stops at 4.12, and some of them still call the v1beta1
 * FlowSchema API that Kubernetes 1.26 (OpenShift 4.13) removes — what would hold them at 4.12.
 */
export function simulatedInhibitors(externalId: string, version: string): ClusterInhibitorFacts {
  const minor = parseVersion(version)?.minor ?? 0;
  const operators: InstalledOperator[] = [{ name: 'cert-manager.v1.13.0', namespace: 'cert-manager', maxOpenShiftVersion: null }];
  if (hashUnit(`${externalId}|logging`) < 0.35)
    operators.push({ name: 'cluster-logging.v5.8.1', namespace: 'openshift-logging', maxOpenShiftVersion: `4.${minor + 1}` });
  const removedApis: RemovedApiUse[] = [];
  if (minor === 12) {
    operators.push({ name: 'elasticsearch-operator.v5.5.3', namespace: 'openshift-operators-redhat', maxOpenShiftVersion: '4.12' });
    const calls = Math.floor(hashUnit(`${externalId}|flowschemas`) * 90);
    if (calls > 30)
      removedApis.push({
        resource: 'flowschemas.v1beta1.flowcontrol.apiserver.k8s.io',
        removedInRelease: '1.26',
        users: ['system:serviceaccount:openshift-monitoring:kube-state-metrics'],
      });
  }
  return { operators, removedApis };
}

/**
 * The OLM InstallPlans of a simulated cluster running `version` at `nowMs` (fixed per cluster and
 * version, as a real cluster gets new operator versions with its platform): on most clusters the
 * GitOps and Local Storage operators (and OpenShift Logging where it is installed) have manual
 * approval and a plan pending for the version; an approved plan installs in 3 to 10 minutes.
 */
export function simulatedInstallPlans(
  externalId: string,
  version: string,
  approvals: SimulatorApprovals[string] | undefined,
  nowMs: number,
): InstallPlanReading[] {
  if (hashUnit(`${externalId}|olm-manual`) >= MANUAL_OLM_RATE) return [];
  const minor = parseVersion(version)?.minor ?? 0;
  const patch = parseVersion(version)?.patch ?? 0;
  const subs = [
    {
      namespace: 'openshift-gitops-operator',
      name: 'openshift-gitops-operator',
      csv: `openshift-gitops-operator.v1.${minor - 1}.${patch % 4}`,
    },
    {
      namespace: 'openshift-local-storage',
      name: 'local-storage-operator',
      csv: `local-storage-operator.v4.${minor}.0-2026${String(patch).padStart(2, '0')}`,
    },
    ...(hashUnit(`${externalId}|logging`) < 0.35
      ? [{ namespace: 'openshift-logging', name: 'cluster-logging', csv: `cluster-logging.v5.8.${patch % 9}` }]
      : []),
  ];
  return subs.map((s) => {
    const name = `install-${Math.floor(hashUnit(`${externalId}|${version}|${s.name}`) * 36 ** 5)
      .toString(36)
      .padStart(5, '0')}`;
    const approval = approvals?.find((a) => a.namespace === s.namespace && a.name === name);
    const installMs = (3 + hashUnit(`${externalId}|${name}|i`) * 7) * MINUTE_MS;
    const phase = !approval ? 'RequiresApproval' : Date.parse(approval.at) + installMs <= nowMs ? 'Complete' : 'Installing';
    return {
      namespace: s.namespace,
      name,
      approval: 'Manual',
      approved: approval !== undefined,
      phase,
      csvNames: [s.csv],
      subscriptions: [{ namespace: s.namespace, name: s.name, package: s.name }],
    };
  });
}

/** The simulated state of one cluster at `nowMs`, from its stored row. Pure given the graph. */
export function simulateCluster(
  row: SimulatedClusterRow,
  nowMs: number,
  graph: DemoGraphDocument,
  releases?: SimulatorReleases,
  pools?: SimulatorPools[string],
  /** the graph of releases older than `graph`'s (the demo's EUS cluster on 4.6–4.8) */
  olderGraph?: DemoGraphDocument,
): ClusterSnapshot {
  let version = row.version;
  let currentUpgrade: ProviderUpgrade | null = row.currentUpgrade ? { ...row.currentUpgrade } : null;
  let lastUpgrade: ClusterSnapshot['lastUpgrade'] = null;
  if (currentUpgrade?.state === 'scheduled' && Date.parse(currentUpgrade.nextRun) <= nowMs) {
    currentUpgrade = { ...currentUpgrade, state: 'started', startedAt: currentUpgrade.nextRun, progress: 0, phase: 'started' };
  }
  if (currentUpgrade?.state === 'started') {
    const startedAt = currentUpgrade.startedAt ?? currentUpgrade.nextRun;
    const duration = upgradeDurationMs(row.externalId, currentUpgrade.version, startedAt);
    const elapsed = nowMs - Date.parse(startedAt);
    const stuck = stuckAt(row.externalId, currentUpgrade.version, startedAt);
    if (elapsed >= duration && stuck === null) {
      const f = hashUnit(`${row.externalId}|${currentUpgrade.version}|${startedAt}|f`);
      const failed = f < FAILURE_RATE;
      lastUpgrade = {
        fromVersion: version,
        version: currentUpgrade.version,
        state: failed ? 'failed' : 'completed',
        startedAt,
        completedAt: formatInstantToSecond(Date.parse(startedAt) + duration),
        ...(failed ? { message: FAILURE_REASONS[Math.floor((f / FAILURE_RATE) * FAILURE_REASONS.length)] ?? FAILURE_REASONS[0]! } : {}),
      };
      if (!failed) version = currentUpgrade.version;
      currentUpgrade = null;
    } else {
      const progress = Math.max(0, Math.min(elapsed / duration, stuck ?? 1));
      const stalled = stuck !== null && elapsed / duration >= stuck;
      currentUpgrade = {
        ...currentUpgrade,
        startedAt,
        progress: Math.round(progress * 100) / 100,
        phase: progress < 0.05 ? 'started' : progress < 0.45 ? 'control-plane' : 'workers',
        ...(stalled ? { message: STUCK_MESSAGE } : {}),
      };
    }
  }
  const bucket = Math.floor(nowMs / FLAP_BUCKET_MS);
  const health = healthFromIssues(row.healthIssues);
  const flap = hashUnit(`${row.externalId}|${bucket}|h`);
  if (flap < FLAP_RATE) {
    const { kind, ...reading } = FLAPS[Math.floor((flap / FLAP_RATE) * FLAPS.length)] ?? FLAPS[0]!;
    if (kind === 'alert') health.alerts = [...(health.alerts ?? []), reading as AlertReading];
    else if (!health.operators.some((o) => o.name === reading.name)) health.operators.push(reading as OperatorReading);
  }
  const offersFrom = olderGraph && !graph.nodes.some((n) => n.version === version) ? olderGraph : graph;
  const offered = availableUpdates(offersFrom, version, row.channel).filter((v) => isOffered(releases, v, nowMs));
  return {
    externalId: row.externalId,
    name: row.name,
    version,
    channel: row.channel,
    availableUpgrades: offered,
    conditionalUpgrades: conditionalUpdates(graph, version).filter((v) => !offered.includes(v) && isOffered(releases, v, nowMs)),
    upgradeable: { status: 'True' },
    health,
    ...summarizeHealth(health),
    currentUpgrade,
    lastUpgrade,
    discovery: simulatedDiscovery(row),
    inhibitors: simulatedInhibitors(row.externalId, version),
    machineConfigPools: simulatedPools(version, row.nodeCount, pools, nowMs),
  };
}

/** The simulated clusters of `organizationId` (every simulated cluster when absent) as a provider. */
export function createSimulatorProvider(db: Db, organizationId?: number): FleetProvider {
  /** what the simulator keeps beside the clusters: read once per observation, not once per cluster */
  const readState = async () => ({
    releases: await readSetting<SimulatorReleases>(db, SIMULATOR_RELEASES_KEY),
    pools: await readSetting<SimulatorPools>(db, SIMULATOR_POOLS_KEY),
  });
  const observeRow = (row: SimulatedClusterRow, now: Date, state: Awaited<ReturnType<typeof readState>>) =>
    simulateCluster(row, now.getTime(), loadDemoGraph(), state.releases, state.pools?.[row.externalId], loadOlderDemoGraph());
  const find = async (ref: ClusterRef) => {
    const row = await findSimulatedCluster(db, ref.externalId, organizationId);
    if (!row) throw new ProviderError('simulator', `no simulated cluster ${ref.externalId}`, 404);
    return row;
  };
  const plansOf = async (ref: ClusterRef, now: Date) => {
    const nowMs = now.getTime();
    const seen = observeRow(await find(ref), now, await readState());
    return simulatedInstallPlans(
      ref.externalId,
      seen.version,
      (await readSetting<SimulatorApprovals>(db, SIMULATOR_APPROVALS_KEY))?.[ref.externalId],
      nowMs,
    );
  };
  return {
    name: 'simulator',
    listInstallPlans(ref, now) {
      return inProcess(async () => await plansOf(ref, now));
    },
    approveInstallPlan(req, now) {
      return inProcess(async () => {
        const plan = (await plansOf(req, now)).find((p) => p.namespace === req.namespace && p.name === req.installPlan);
        if (!plan) throw new ProviderError('simulator', `installplans.operators.coreos.com "${req.installPlan}" not found`, 404);
        if (plan.approved) return 'already-approved' as const;
        const all = (await readSetting<SimulatorApprovals>(db, SIMULATOR_APPROVALS_KEY)) ?? {};
        const mine = [...(all[req.externalId] ?? []), { namespace: req.namespace, name: req.installPlan, at: now.toISOString() }];
        // only the plans of the last few versions are kept (older ones are gone, as OLM collects them)
        await writeSetting(db, SIMULATOR_APPROVALS_KEY, { ...all, [req.externalId]: mine.slice(-12) } satisfies SimulatorApprovals, now);
        return 'approved' as const;
      });
    },
    startLeadMs: 0,
    minStartNoticeMs: 0,
    observe(now) {
      return inProcess(async () => {
        const state = await readState();
        return {
          clusters: (await listSimulatedClusters(db, organizationId)).map((row) => observeRow(row, now, state)),
          errors: [],
        };
      });
    },
    observeCluster(ref, now) {
      return inProcess(async () => observeRow(await find(ref), now, await readState()));
    },
    startUpgrade(req, now) {
      return inProcess(async () => {
        const seen = observeRow(await find(req), now, await readState());
        if (seen.currentUpgrade?.version === req.version) return; // already there: idempotent
        if (seen.currentUpgrade)
          throw new ProviderError('simulator', `${req.name} already has an upgrade to ${seen.currentUpgrade.version}`);
        await setSimulatedUpgrade(
          db,
          req.externalId,
          { version: req.version, nextRun: formatInstantToSecond(req.at.getTime()), state: 'scheduled' },
          null,
        );
      });
    },
    setMachineConfigPoolPaused(ref, pool, paused, now) {
      return inProcess(async () => {
        const seen = observeRow(await find(ref), now, await readState());
        const current = seen.machineConfigPools?.find((p) => p.name === pool);
        if (!current) throw new ProviderError('simulator', `machineconfigpools.machineconfiguration.openshift.io "${pool}" not found`, 404);
        if (current.paused === paused) return 'already-set' as const;
        const all = (await readSetting<SimulatorPools>(db, SIMULATOR_POOLS_KEY)) ?? {};
        const mine = { ...(all[ref.externalId] ?? {}) };
        const was = mine[pool];
        mine[pool] = paused
          ? { paused: true, since: now.toISOString(), version: seen.version }
          : // the machines roll to the control plane's release once unpaused (nothing to roll when it did not move)
            {
              paused: false,
              rollingFrom: was?.paused && was.version !== seen.version ? now.toISOString() : '1970-01-01T00:00:00Z',
              version: seen.version,
            };
        await writeSetting(db, SIMULATOR_POOLS_KEY, { ...all, [ref.externalId]: mine } satisfies SimulatorPools, now);
        return 'set' as const;
      });
    },
    acknowledgeAdminGate(ref, gate, now) {
      return inProcess(async () => {
        await find(ref);
        const all = (await readSetting<Record<string, string[]>>(db, SIMULATOR_ADMIN_ACKS_KEY)) ?? {};
        if (all[ref.externalId]?.includes(gate)) return 'already-set' as const;
        await writeSetting(db, SIMULATOR_ADMIN_ACKS_KEY, { ...all, [ref.externalId]: [...(all[ref.externalId] ?? []), gate] }, now);
        return 'set' as const;
      });
    },
    setChannel(ref, channel) {
      return inProcess(async () => {
        await find(ref);
        return (await setSimulatedChannel(db, ref.externalId, channel)) ? ('set' as const) : ('already-set' as const);
      });
    },
    cancelUpgrade(req, now) {
      return inProcess(async () => {
        if (observeRow(await find(req), now, await readState()).currentUpgrade?.state !== 'scheduled') return; // nothing held, or already running
        await setSimulatedUpgrade(db, req.externalId, null, req.version);
      });
    },
  };
}

export async function readSimulatorReleases(db: Db): Promise<SimulatorReleases | undefined> {
  return await readSetting<SimulatorReleases>(db, SIMULATOR_RELEASES_KEY);
}

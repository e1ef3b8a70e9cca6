/**
 * The demo fleet: a realistic organization of ~60 clusters with 60 days of upgrade history,
 * generated deterministically (seeded RNG) from a real update graph. Pure: the graph document
 * and `now` come in, rows for the database come out. Used by the seed script and the simulator.
 *
 * The history is simulated, not recorded: releases of the graph are spread over the last 60
 * days, each sector picks them up after its own lag and at its own schedule, and soak is the
 * integral of (healthy clusters × days) per version and workload, as the upgrade service counts it.
 */
import { compareVersions, parseVersion } from '@/server/domain/version/version';
import { createRng } from '@/server/domain/random';

export interface DemoGraphNode {
  version: string;
  payload: string;
  metadata?: Record<string, string>;
}
export interface DemoGraphDocument {
  nodes: DemoGraphNode[];
  edges: [number, number][];
  conditionalEdges?: { edges: { from: string; to: string }[] }[];
}

export type DemoSchedule = string | { cron: string; location?: string; isoWeek?: string; suspend?: boolean };

export interface DemoUpgradePolicy {
  workloads: string[];
  schedule: DemoSchedule;
  conditions: { soakDays?: number; mutexes?: string[]; sector?: string; blockedVersions?: string[]; targetVersion?: string };
  /** lifecycle options (server/domain/lifecycle/options.ts), as a policy file writes them */
  lifecycle?: { operatorApprovals?: { include: string[]; exclude?: string[]; timeout?: string }; eusControlPlaneOnly?: boolean };
}

export interface DemoCluster {
  name: string;
  externalId: string;
  region: string;
  nodeCount: number;
  version: string;
  channel: string;
  availableUpgrades: string[];
  healthy: boolean;
  healthIssues: string[];
  upgradePolicy: DemoUpgradePolicy | null;
  currentUpgrade: { version: string; nextRun: string; state: 'scheduled' | 'started'; startedAt?: string; progress?: number } | null;
}

export interface DemoUpgradeRecord {
  cluster: string;
  fromVersion: string;
  toVersion: string;
  state: 'completed' | 'failed';
  startedAt: Date;
  completedAt: Date;
  message?: string;
}

export interface DemoFleet {
  organization: {
    name: string;
    allowedWorkloads: string[];
    allowedMutexes: string[];
    sectors: { name: string; maxParallelUpgrades?: string; canary?: { count: number; soakHours: number }; dependencies: string[] }[];
    blockedVersions: { pattern: string; reason: string }[];
  };
  clusters: DemoCluster[];
  upgrades: DemoUpgradeRecord[];
  versionSoak: { version: string; workload: string; soakDays: number; reporting: string[]; firstSeenAt: Date }[];
  soakSamples: { at: Date; version: string; workload: string; soakDays: number; reportingCount: number }[];
  checkIn: Date;
}

const DAY_MS = 86_400_000;
const HISTORY_DAYS = 60;

interface SectorPlan {
  name: string;
  dependencies: string[];
  maxParallelUpgrades?: string;
  /** the sector's canaries, as a policy file writes them */
  canary?: { count: number; soakHours: number };
  /** days after a release before this sector's clusters take it */
  lagDays: number;
  soakDays: number;
  schedule: DemoSchedule;
  regions: string[];
}

const SECTORS: SectorPlan[] = [
  { name: 'dev', dependencies: [], lagDays: 1, soakDays: 0, schedule: '0 * * * *', regions: ['us-east-1', 'eu-west-1'] },
  {
    name: 'stage',
    dependencies: ['dev'],
    lagDays: 4,
    soakDays: 2,
    schedule: { cron: '0 8-17 * * 1-5', location: 'Europe/Berlin' },
    regions: ['us-east-1', 'eu-central-1'],
  },
  {
    name: 'prod-blue',
    dependencies: ['stage'],
    maxParallelUpgrades: '50%',
    lagDays: 10,
    soakDays: 6,
    schedule: { cron: '0 14 * * 2,4', location: 'America/New_York' },
    regions: ['us-east-1', 'us-west-2', 'eu-west-1'],
  },
  {
    name: 'prod-green',
    dependencies: ['prod-blue'],
    maxParallelUpgrades: '2',
    lagDays: 17,
    soakDays: 10,
    schedule: { cron: '30 2 * * 3', location: 'Asia/Tokyo', isoWeek: '@even' },
    regions: ['ap-northeast-1', 'eu-central-1', 'us-west-2'],
  },
  { name: 'hive-integration', dependencies: [], lagDays: 2, soakDays: 1, schedule: '15 */2 * * *', regions: ['us-east-1'] },
  {
    name: 'hive-production',
    dependencies: ['hive-integration'],
    // canaries (plan/canaries.ts): the first hive-production cluster by name goes first and runs a
    // version a day before the rest of the sector takes it; no sector follows this one, so the
    // rest of the demo plans as before
    canary: { count: 1, soakHours: 24 },
    lagDays: 8,
    soakDays: 4,
    schedule: { cron: '0 10 * * 1-4', location: 'America/Los_Angeles' },
    regions: ['us-east-1', 'us-west-2', 'eu-west-1'],
  },
];

/** which workloads run where, and how many clusters of each kind a sector has */
const CLUSTER_KINDS: { prefix: string; workloads: string[]; perSector: Record<string, number>; mutexes?: (sector: string) => string[] }[] =
  [
    {
      prefix: 'ocm',
      workloads: ['ocm', 'app-sre'],
      perSector: { dev: 3, stage: 3, 'prod-blue': 4, 'prod-green': 4 },
      mutexes: (s) => (s.startsWith('prod') ? ['ocm-prod'] : []),
    },
    {
      prefix: 'quay',
      workloads: ['quay'],
      perSector: { dev: 2, stage: 2, 'prod-blue': 3, 'prod-green': 3 },
      mutexes: (s) => (s.startsWith('prod') ? ['quay-prod'] : []),
    },
    { prefix: 'telemeter', workloads: ['telemeter'], perSector: { dev: 1, stage: 2, 'prod-blue': 2, 'prod-green': 2 } },
    {
      prefix: 'appsre',
      workloads: ['app-sre'],
      perSector: { dev: 2, stage: 2, 'prod-blue': 3, 'prod-green': 3 },
      mutexes: (s) => (s === 'prod-green' ? ['appsre-green'] : []),
    },
    {
      prefix: 'hive',
      workloads: ['hive'],
      perSector: { 'hive-integration': 4, 'hive-production': 9 },
      mutexes: (s) => (s === 'hive-production' ? ['hive-shard-a'] : []),
    },
  ];

function sortVersions(versions: string[]): string[] {
  return [...versions].sort(compareVersions);
}

function channelsOf(node: DemoGraphNode): string[] {
  return (node.metadata?.['io.openshift.upgrades.graph.release.channels'] ?? '').split(',').filter(Boolean);
}

/** unconditional successors by version, restricted to nodes of a channel */
/** per graph document: the simulator asks for the same (version, channel) thousands of times a tick */
const availableUpdatesMemo = new WeakMap<DemoGraphDocument, Map<string, readonly string[]>>();

export function availableUpdates(graph: DemoGraphDocument, version: string, channel: string): string[] {
  let memo = availableUpdatesMemo.get(graph);
  if (!memo) availableUpdatesMemo.set(graph, (memo = new Map<string, readonly string[]>()));
  const key = `${version}|${channel}`;
  let found = memo.get(key);
  if (!found) memo.set(key, (found = computeAvailableUpdates(graph, version, channel)));
  // a copy: callers may sort or extend what they get
  return [...found];
}

function computeAvailableUpdates(graph: DemoGraphDocument, version: string, channel: string): string[] {
  const conditional = new Set<string>();
  for (const group of graph.conditionalEdges ?? []) for (const e of group.edges) conditional.add(`${e.from}>${e.to}`);
  const index = graph.nodes.findIndex((n) => n.version === version);
  if (index < 0) return [];
  const out: string[] = [];
  for (const [from, to] of graph.edges) {
    if (from !== index) continue;
    const target = graph.nodes[to];
    if (!target || conditional.has(`${version}>${target.version}`)) continue;
    if (channelsOf(target).includes(channel)) out.push(target.version);
  }
  return sortVersions(out);
}

export interface DemoFleetOptions {
  /**
   * Keep the newest N releases of the graph out of the fleet's history and offers, so the
   * simulator can publish them as simulated days pass (default 0: every release is out).
   */
  holdBackReleases?: number;
  /**
   * Clusters of each kind per sector, as a multiple of the demo's (default 1: 57 clusters, eus-legacy-01 included). A
   * scale of 180 gives a ~10,000-cluster fleet for trying the pages at size.
   */
  scale?: number;
}

export function generateDemoFleet(graph: DemoGraphDocument, now: Date, seed = 20261122, opts: DemoFleetOptions = {}): DemoFleet {
  const rng = createRng(seed);
  const hold = Math.max(0, Math.floor(opts.holdBackReleases ?? 0));
  const pick = <T>(items: T[]): T => items[Math.floor(rng() * items.length)] as T;
  const nowMs = now.getTime();
  const start = nowMs - HISTORY_DAYS * DAY_MS;

  // History follows any edge, conditional ones included: their risks did not apply to these clusters.
  const hasEdge = new Set(graph.edges.map(([a, b]) => `${graph.nodes[a]?.version}>${graph.nodes[b]?.version}`));
  for (const group of graph.conditionalEdges ?? []) for (const e of group.edges) hasEdge.add(`${e.from}>${e.to}`);
  const every413 = sortVersions(graph.nodes.map((n) => n.version).filter((v) => parseVersion(v)?.minor === 13));
  const heldBack = new Set(hold ? every413.slice(-hold) : []);
  const all413 = hold ? every413.slice(0, -hold) : every413;
  const scale = Math.max(1, Math.floor(opts.scale ?? 1));
  const offers = new Map<string, string[]>();
  const offered = (version: string, channel: string): string[] => {
    const key = `${version}|${channel}`;
    let list = offers.get(key);
    if (!list) offers.set(key, (list = availableUpdates(graph, version, channel).filter((v) => !heldBack.has(v))));
    return [...list];
  };
  const all412 = sortVersions(graph.nodes.map((n) => n.version).filter((v) => parseVersion(v)?.minor === 12));
  // The last 13 z-streams of 4.13 are "released" over the demo's 60 days; the newest 2 days ago.
  const train = all413.slice(-13);
  const releasedAt = new Map<string, number>();
  train.forEach((v, i) => releasedAt.set(v, nowMs - (2 + (train.length - 1 - i) * 4.6) * DAY_MS));
  for (const v of [...all413.slice(0, -13), ...all412]) releasedAt.set(v, start - 30 * DAY_MS);

  const clusters: DemoCluster[] = [];
  const upgrades: DemoUpgradeRecord[] = [];
  /** per cluster: [fromMs, version] segments for soak integration */
  const segments = new Map<string, { from: number; to: number; version: string }[]>();
  const workloadsOf = new Map<string, string[]>();
  /** clusters by their name with the demo's two-digit numbering (`hive-prod-07`), at any scale */
  const byDemoName = new Map<string, DemoCluster>();

  let serial = 0;
  for (const kind of CLUSTER_KINDS) {
    for (const sector of SECTORS) {
      const count = (kind.perSector[sector.name] ?? 0) * scale;
      const digits = Math.max(2, String(count).length);
      for (let i = 1; i <= count; i++) {
        serial++;
        const stem = `${kind.prefix}-${sector.name
          .replace(/^hive-/, '')
          .replace('integration', 'int')
          .replace('production', 'prod')}`;
        const name = `${stem}-${String(i).padStart(digits, '0')}`;
        // telemeter stays on 4.12 (stable-4.12) in stage/prod: a second minor in the fleet
        const legacy = kind.prefix === 'telemeter' && sector.name !== 'dev';
        const channel = legacy ? 'stable-4.12' : pick(['stable-4.13', 'stable-4.13', 'fast-4.13']);
        const pool = legacy ? all412.slice(-14, -5) : train;
        const lag = sector.lagDays + rng() * 2;
        // start: something released well before the window
        let version = legacy ? (pool[Math.floor(rng() * 3)] as string) : (all413[all413.length - 13 - 1 - Math.floor(rng() * 3)] as string);
        const segs: { from: number; to: number; version: string }[] = [];
        let since = start;
        let t = start + rng() * 3 * DAY_MS;
        while (t < nowMs - DAY_MS) {
          // newest version released at least `lag` days before t, reachable by one edge
          const candidates = pool.filter(
            (v) => compareVersions(v, version) > 0 && (releasedAt.get(v) ?? Infinity) + lag * DAY_MS <= t && hasEdge.has(`${version}>${v}`),
          );
          const target = candidates[candidates.length - 1];
          if (target) {
            const duration = (40 + rng() * 80) * 60_000;
            const failed = rng() < 0.04;
            upgrades.push({
              cluster: name,
              fromVersion: version,
              toVersion: target,
              state: failed ? 'failed' : 'completed',
              startedAt: new Date(t),
              completedAt: new Date(t + duration),
              message: failed ? 'machine-config operator degraded: worker pool did not roll out; retried next window' : undefined,
            });
            if (!failed) {
              segs.push({ from: since, to: t + duration, version });
              since = t + duration;
              version = target;
            }
          }
          t += (legacy ? 9 : 3.5 + rng() * 3) * DAY_MS;
        }
        segs.push({ from: since, to: nowMs, version });
        segments.set(name, segs);

        const mutexes = kind.mutexes?.(sector.name) ?? [];
        const policy: DemoUpgradePolicy = {
          workloads: kind.workloads,
          schedule: sector.schedule,
          conditions: {
            soakDays: sector.soakDays,
            sector: sector.name,
            ...(mutexes.length ? { mutexes } : {}),
          },
          // the OCM and Quay clusters run operators upgraded with the platform: their manual
          // InstallPlans are approved after it (Local Storage is left to its team)
          ...(kind.prefix === 'ocm' || kind.prefix === 'quay'
            ? { lifecycle: { operatorApprovals: { include: ['*'], exclude: ['local-storage-operator'], timeout: '2h' } } }
            : {}),
        };
        workloadsOf.set(name, kind.workloads);
        const cluster: DemoCluster = {
          name,
          externalId: `sim-${(0x1f00 + serial * 7919).toString(16)}`,
          region: pick(sector.regions),
          nodeCount:
            sector.name.startsWith('prod') || sector.name === 'hive-production' ? 12 + Math.floor(rng() * 60) : 3 + Math.floor(rng() * 6),
          version,
          channel,
          availableUpgrades: offered(version, channel),
          healthy: true,
          healthIssues: [],
          upgradePolicy: policy,
          currentUpgrade: null,
        };
        clusters.push(cluster);
        byDemoName.set(`${stem}-${String(i).padStart(2, '0')}`, cluster);
      }
    }
  }

  // Unmanaged clusters: visible in the fleet, no policy.
  for (const [i, v] of [all413[all413.length - 4], all412[all412.length - 1]].entries()) {
    if (!v) continue;
    const channel = parseVersion(v)?.minor === 13 ? 'stable-4.13' : 'stable-4.12';
    clusters.push({
      name: `sandbox-${String(i + 1).padStart(2, '0')}`,
      externalId: `sim-sbx-${i + 1}`,
      region: 'us-east-2',
      nodeCount: 3,
      version: v,
      channel,
      availableUpgrades: offered(v, channel),
      healthy: true,
      healthIssues: [],
      upgradePolicy: null,
      currentUpgrade: null,
    });
  }

  // One cluster far behind, on EUS 4.6 with the target 4.8.*: two minors away, so it follows the
  // path solver's route over the stored union-4.6-4.9 graph (4.6.30 → 4.7.60 → 4.8.54), switching
  // to eus-4.8 for the first hop (plan/route-following.ts). Not in a sector, not scaled. Its policy
  // takes the run control-plane-only (lifecycle/eus-procedure.ts): the worker pool is paused, both
  // hops run, then the workers roll once.
  clusters.push({
    name: 'eus-legacy-01',
    externalId: 'sim-eus-1',
    region: 'us-east-2',
    nodeCount: 6,
    version: '4.6.30',
    channel: 'eus-4.6',
    // the simulator's own graph is stable-4.13: it offers this cluster nothing, the route is the stored graph's
    availableUpgrades: [],
    healthy: true,
    healthIssues: [],
    upgradePolicy: {
      workloads: ['app-sre'],
      schedule: '0 * * * *',
      conditions: { soakDays: 0, targetVersion: '4.8.*' },
      lifecycle: { eusControlPlaneOnly: true },
    },
    currentUpgrade: null,
  });

  const byName = new Map(clusters.map((c) => [c.name, c]));
  // A few unhealthy clusters (health gate), a few mid-upgrade, one scheduled (named as in the
  // 57-cluster demo; a scaled fleet pads the numbers wider, `byDemoName` finds them).
  const unhealthy: [string, string][] = [
    ['quay-stage-02', 'ClusterOperator image-registry Degraded: storage backend unreachable'],
    ['ocm-prod-blue-03', 'critical alert KubeAPIErrorBudgetBurn firing'],
    ['hive-prod-07', 'ClusterOperator machine-config Degraded: pool worker has 1 degraded machine'],
  ];
  for (const [name, issue] of unhealthy) {
    const c = byDemoName.get(name);
    if (c) {
      c.healthy = false;
      c.healthIssues = [issue];
    }
  }
  const midUpgrade: [string, 'started' | 'scheduled', number][] = [
    ['ocm-dev-01', 'started', 0.62],
    ['appsre-stage-01', 'started', 0.25],
    ['hive-int-02', 'started', 0.85],
    ['quay-dev-02', 'scheduled', 0],
  ];
  for (const [name, state, progress] of midUpgrade) {
    const c = byDemoName.get(name);
    const target = c?.availableUpgrades[c.availableUpgrades.length - 1];
    if (!c || !target) continue;
    const nextRun = state === 'started' ? new Date(nowMs - progress * 90 * 60_000) : new Date(nowMs + 45 * 60_000);
    nextRun.setUTCSeconds(0, 0);
    c.currentUpgrade = {
      version: target,
      nextRun: nextRun.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      state,
      ...(state === 'started' ? { startedAt: nextRun.toISOString().replace(/\.\d{3}Z$/, 'Z'), progress } : {}),
    };
  }

  // Soak: cluster-days per (version, workload) of healthy clusters, sampled daily.
  const soak = new Map<string, { version: string; workload: string; soakDays: number; reporting: Set<string>; firstSeenAt: number }>();
  const soakSamples: DemoFleet['soakSamples'] = [];
  const unhealthySince = nowMs - 2 * DAY_MS;
  const unhealthyNames = new Set(unhealthy.flatMap(([n]) => byDemoName.get(n)?.name ?? []));
  for (let day = 0; day <= HISTORY_DAYS; day++) {
    const dayEnd = Math.min(start + day * DAY_MS, nowMs);
    const dayStart = dayEnd - DAY_MS;
    if (day > 0) {
      for (const [name, segs] of segments) {
        if (!byName.get(name)?.upgradePolicy) continue;
        for (const seg of segs) {
          let from = Math.max(seg.from, dayStart);
          let to = Math.min(seg.to, dayEnd);
          if (unhealthyNames.has(name)) to = Math.min(to, unhealthySince);
          if (to <= from) continue;
          for (const w of workloadsOf.get(name) ?? []) {
            const key = `${seg.version}|${w}`;
            let entry = soak.get(key);
            if (!entry) {
              entry = { version: seg.version, workload: w, soakDays: 0, reporting: new Set(), firstSeenAt: from };
              soak.set(key, entry);
            }
            entry.soakDays += (to - from) / DAY_MS;
            entry.reporting.add(name);
          }
          from = to;
        }
      }
    }
    for (const entry of soak.values()) {
      soakSamples.push({
        at: new Date(dayEnd),
        version: entry.version,
        workload: entry.workload,
        soakDays: round(entry.soakDays),
        reportingCount: entry.reporting.size,
      });
    }
  }

  const allowedWorkloads = [...new Set(CLUSTER_KINDS.flatMap((k) => k.workloads))].sort();
  const allowedMutexes = [...new Set(CLUSTER_KINDS.flatMap((k) => SECTORS.flatMap((s) => k.mutexes?.(s.name) ?? [])))].sort();
  return {
    organization: {
      name: 'app-sre',
      allowedWorkloads,
      allowedMutexes,
      sectors: SECTORS.map((s) => ({
        name: s.name,
        dependencies: s.dependencies,
        ...(s.maxParallelUpgrades ? { maxParallelUpgrades: s.maxParallelUpgrades } : {}),
        ...(s.canary ? { canary: s.canary } : {}),
      })),
      blockedVersions: [
        { pattern: '^.*-(rc|ec|fc)\\..*$', reason: 'pre-release builds never reach managed clusters' },
        {
          pattern: `^${escapeRegex(train[train.length - 3] ?? '4.13.41')}$`,
          reason: 'OCPBUGS-31337: etcd defragmentation stalls on large clusters; fixed in the next z-stream',
        },
      ],
    },
    clusters,
    upgrades,
    versionSoak: [...soak.values()].map((e) => ({
      version: e.version,
      workload: e.workload,
      soakDays: round(e.soakDays),
      reporting: [...e.reporting],
      firstSeenAt: new Date(e.firstSeenAt),
    })),
    soakSamples,
    checkIn: now,
  };
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

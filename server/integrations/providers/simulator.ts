/**
 * The default provider: an embedded simulated fleet (the demo fleet). Its state lives in the
 * database: the clusters table (what each cluster runs and what upgrade it has) plus two
 * settings, 'simulator.clock' (server/fleet-clock.ts format) and 'simulator.releases' (releases
 * of the real stable-4.13 graph not yet published, with their simulated publication times).
 *
 * Everything that happens is a deterministic function of (cluster, upgrade, clock), so a
 * snapshot taken twice at the same instant is the same, and a crash loses nothing: upgrades go
 * scheduled → started → control plane → workers → completed in 40 min to 2 h, about 1 in 20
 * fails, health flaps now and then, and held-back releases appear on their channels over time.
 */
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
  readSetting,
  setSimulatedUpgrade,
  writeSetting,
  type SimulatedClusterRow,
} from '@/server/repositories/scheduler-repository';
import type { ClusterRef, ClusterSnapshot, FleetProvider, ProviderUpgrade, ScheduleUpgradeRequest, CancelUpgradeRequest } from './types';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
export const SIMULATOR_RELEASES_KEY = 'simulator.releases';
/** simulated days between two published releases */
const PUBLISH_EVERY_DAYS = 3.5;
const FAILURE_RATE = 0.05;
const FLAP_RATE = 0.03;
const FLAP_BUCKET_MS = 6 * 3_600_000;

export interface SimulatorReleases {
  pending: { version: string; publishAt: string }[];
}

const FLAP_ISSUES = [
  'critical alert KubePersistentVolumeFillingUp firing (simulated flap)',
  'ClusterOperator ingress Degraded: router pods restarting (simulated flap)',
  'critical alert etcdHighFsyncDurations firing (simulated flap)',
];

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

function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** upgrade duration in ms: 40 min to 2 h, fixed per (cluster, target, start) */
export function upgradeDurationMs(externalId: string, version: string, startedAt: string): number {
  return (40 + hashUnit(`${externalId}|${version}|${startedAt}|d`) * 80) * MINUTE_MS;
}

export function getSimulatorClock(db: Db): SimulatorClockState | undefined {
  return readSetting<SimulatorClockState>(db, SIMULATOR_CLOCK_KEY);
}

/**
 * Creates the simulator's clock and release schedule when absent: the clock starts at real time,
 * and graph releases newer than anything the fleet runs or is offered are published one by one.
 */
export function ensureSimulatorState(db: Db, realNow: Date, speed = getEnv().simulatorSpeed): SimulatorClockState {
  let clock = getSimulatorClock(db);
  if (!clock) {
    clock = {
      simAnchor: realNow.toISOString(),
      realAnchor: realNow.toISOString(),
      speed,
    };
    writeSetting(db, SIMULATOR_CLOCK_KEY, clock, realNow);
  }
  if (!readSetting<SimulatorReleases>(db, SIMULATOR_RELEASES_KEY)) {
    const graph = loadDemoGraph();
    const known = new Set<string>();
    for (const c of listSimulatedClusters(db)) {
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
          .map((version, i) => ({ version, publishAt: iso(simNow + (i + 1) * PUBLISH_EVERY_DAYS * DAY_MS) }))
      : [];
    writeSetting(db, SIMULATOR_RELEASES_KEY, { pending } satisfies SimulatorReleases, realNow);
  }
  return clock;
}

type StoredClock = SimulatorClockState & { resumeSpeed?: number };

/** Re-anchors the clock so simulated time is continuous across speed changes (0 = paused). */
export function setSimulatorSpeed(db: Db, speed: number, realNow: Date): StoredClock {
  const clock: StoredClock = ensureSimulatorState(db, realNow);
  const next: StoredClock = {
    simAnchor: simulatedNow(clock, realNow).toISOString(),
    realAnchor: realNow.toISOString(),
    speed,
    resumeSpeed: speed > 0 ? speed : clock.speed > 0 ? clock.speed : (clock.resumeSpeed ?? DEFAULT_SIMULATOR_SPEED),
  };
  writeSetting(db, SIMULATOR_CLOCK_KEY, next, realNow);
  return next;
}

export function pauseSimulator(db: Db, realNow: Date): StoredClock {
  return setSimulatorSpeed(db, 0, realNow);
}

export function resumeSimulator(db: Db, realNow: Date): StoredClock {
  const clock: StoredClock = ensureSimulatorState(db, realNow);
  return setSimulatorSpeed(db, clock.speed > 0 ? clock.speed : (clock.resumeSpeed ?? DEFAULT_SIMULATOR_SPEED), realNow);
}

/** Moves simulated time forward by `ms` at once (e.g. "advance 1 day"). */
export function advanceSimulator(db: Db, ms: number, realNow: Date): SimulatorClockState {
  const clock = ensureSimulatorState(db, realNow);
  const next = {
    ...clock,
    simAnchor: new Date(simulatedNow(clock, realNow).getTime() + ms).toISOString(),
    realAnchor: realNow.toISOString(),
  };
  writeSetting(db, SIMULATOR_CLOCK_KEY, next, realNow);
  return next;
}

function isPublished(releases: SimulatorReleases | undefined, version: string, nowMs: number): boolean {
  const p = releases?.pending.find((r) => r.version === version);
  return !p || Date.parse(p.publishAt) <= nowMs;
}

/** The simulated state of one cluster at `nowMs`, from its stored row. Pure given the graph. */
export function simulateCluster(
  row: SimulatedClusterRow,
  nowMs: number,
  graph: DemoGraphDocument,
  releases?: SimulatorReleases,
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
    if (elapsed >= duration) {
      const failed = hashUnit(`${row.externalId}|${currentUpgrade.version}|${startedAt}|f`) < FAILURE_RATE;
      lastUpgrade = {
        fromVersion: version,
        version: currentUpgrade.version,
        state: failed ? 'failed' : 'completed',
        startedAt,
        completedAt: iso(Date.parse(startedAt) + duration),
        ...(failed ? { message: 'machine-config operator Degraded: worker pool did not roll out (simulated)' } : {}),
      };
      if (!failed) version = currentUpgrade.version;
      currentUpgrade = null;
    } else {
      const progress = Math.max(0, elapsed / duration);
      currentUpgrade = {
        ...currentUpgrade,
        startedAt,
        progress: Math.round(progress * 100) / 100,
        phase: progress < 0.05 ? 'started' : progress < 0.45 ? 'control-plane' : 'workers',
      };
    }
  }
  const bucket = Math.floor(nowMs / FLAP_BUCKET_MS);
  const persistent = row.healthIssues.filter((i) => !FLAP_ISSUES.includes(i));
  const flap = hashUnit(`${row.externalId}|${bucket}|h`);
  const issues =
    flap < FLAP_RATE ? [...persistent, FLAP_ISSUES[Math.floor((flap / FLAP_RATE) * FLAP_ISSUES.length)] ?? FLAP_ISSUES[0]!] : persistent;
  const offered = availableUpdates(graph, version, row.channel).filter((v) => isPublished(releases, v, nowMs));
  return {
    externalId: row.externalId,
    name: row.name,
    version,
    channel: row.channel,
    availableUpgrades: offered,
    healthy: issues.length === 0,
    healthIssues: issues,
    currentUpgrade,
    lastUpgrade,
  };
}

export function createSimulatorProvider(db: Db): FleetProvider {
  const find = (ref: ClusterRef) => listSimulatedClusters(db).find((c) => c.externalId === ref.externalId);
  return {
    name: 'simulator',
    listClusters(now) {
      return inProcess(() => {
        const graph = loadDemoGraph();
        const releases = readSetting<SimulatorReleases>(db, SIMULATOR_RELEASES_KEY);
        return listSimulatedClusters(db).map((row) => simulateCluster(row, now.getTime(), graph, releases));
      });
    },
    findUpgrade(ref, now) {
      return inProcess(() => {
        const row = find(ref);
        if (!row) return null;
        return simulateCluster(row, now.getTime(), loadDemoGraph(), readSetting<SimulatorReleases>(db, SIMULATOR_RELEASES_KEY))
          .currentUpgrade;
      });
    },
    scheduleUpgrade(req: ScheduleUpgradeRequest) {
      return inProcess(() => {
        setSimulatedUpgrade(db, req.externalId, { version: req.version, nextRun: iso(req.nextRun.getTime()), state: 'scheduled' }, null);
      });
    },
    cancelUpgrade(req: CancelUpgradeRequest) {
      return inProcess(() => {
        setSimulatedUpgrade(db, req.externalId, null, req.version);
      });
    },
  };
}

export function readSimulatorReleases(db: Db): SimulatorReleases | undefined {
  return readSetting<SimulatorReleases>(db, SIMULATOR_RELEASES_KEY);
}

/**
 * What a new provider snapshot means for each stored cluster, decided purely: the row to write
 * (new clusters are inserted, known ones updated), the cluster's upgrade state, and the upgrade
 * lifecycle transitions the change implies. The tick (server/scheduler/run-tick.ts) records the
 * transitions in the upgrade history, sends their webhook events and writes the rows.
 *
 * The upgrade lifecycle as the tick sees it (issue 11 makes this an explicit state machine):
 *
 *   idle ──schedule──▶ scheduled ──started──▶ upgrading ──completed──▶ idle
 *                         │                      ├──failed──▶ failed (kept until the next upgrade)
 *                         │                      └──cancelled-at-provider──▶ idle
 *                         ├──completed (never seen started)──▶ idle
 *                         ├──failed──▶ failed
 *                         └──cancelled-at-provider──▶ idle
 *
 * Starting and cancelling by fleetplan itself are the upgrade lifecycle's (server/domain/lifecycle).
 */
import type { ClusterInhibitorFacts } from '@/server/domain/lifecycle/inhibitors';
import { compareVersions, isSemver } from '@/server/domain/version/version';

/** The `upgrade_state` a cluster row holds. */
/** `gone`: the provider no longer reports the cluster (kept with its history; back when it reappears) */
export type ClusterUpgradeState = 'idle' | 'scheduled' | 'upgrading' | 'failed' | 'gone';

/** An upgrade the provider reports as under way (or stored as such). */
export interface ObservedUpgrade {
  version: string;
  /** UTC `YYYY-MM-DDTHH:MM:SSZ` */
  nextRun: string;
  state: 'scheduled' | 'started';
  startedAt?: string;
  progress?: number;
}

/** The provider's most recent finished upgrade. */
export interface FinishedUpgradeReport {
  version: string;
  state: 'completed' | 'failed';
  message?: string;
}

/** Where and what the cluster is, as the provider reports it (stored for display and filters). */
export interface ObservedDiscovery {
  labels: Record<string, string>;
  cloud: string | null;
  region: string | null;
  nodeCount: number | null;
}

/** A version gate the cluster has not agreed to (it holds upgrades to `minor`: lifecycle/gates.ts). */
export interface ObservedVersionGate {
  id: string;
  minor: string;
  description: string;
  documentationUrl: string | null;
}

/** What the provider says about one cluster (the fields this step reads). */
export interface ObservedCluster {
  externalId: string;
  name: string;
  version: string;
  channel: string;
  availableUpgrades: string[];
  healthy: boolean;
  healthIssues: string[];
  currentUpgrade: (ObservedUpgrade & { phase?: string }) | null;
  lastUpgrade?: FinishedUpgradeReport | null;
  /** absent: the provider did not report it this time (the stored values stay) */
  discovery?: ObservedDiscovery;
  /** absent: the provider has no version gates (none pending) */
  pendingVersionGates?: ObservedVersionGate[];
  /** absent: not read this time (the stored facts stay) */
  inhibitors?: ClusterInhibitorFacts;
}

/** The stored cluster (the fields this step reads). */
export interface KnownCluster {
  id: number;
  name: string;
  externalId: string;
  version: string;
  currentUpgrade: ObservedUpgrade | null;
  upgradeState: string;
  /** snapshots in a row that did not list it (0 when absent) */
  missedSnapshots?: number;
}

/**
 * A cluster is gone after this many snapshots in a row without it: one list that misses it (a
 * page skipped while the provider's list shifted, a kubeconfig read mid-rewrite) does not take
 * it out of planning.
 */
export const GONE_AFTER_MISSED_SNAPSHOTS = 3;

/** The snapshot columns written for one cluster. */
export interface ObservedClusterRow {
  version: string;
  channel: string;
  availableUpgrades: string[];
  healthy: boolean;
  healthIssues: string[];
  currentUpgrade: ObservedUpgrade | null;
  upgradeState: ClusterUpgradeState;
  /** null: not reported this time, the stored discovery stays */
  discovery: ObservedDiscovery | null;
  pendingVersionGates: ObservedVersionGate[];
  /** null: not read this time, the stored facts stay */
  inhibitors: ClusterInhibitorFacts | null;
}

export type NewClusterRow = ObservedClusterRow & { name: string; externalId: string };
export type ClusterRowUpdate = ObservedClusterRow & { id: number };

interface TransitionBase {
  clusterId: number;
  cluster: string;
  /** the version the cluster ran when the upgrade began (the stored one) */
  fromVersion: string;
  /** the upgrade's target */
  toVersion: string;
}

/**
 * One step of an upgrade's lifecycle observed at the provider.
 * - `failed`: the stored upgrade is gone and the provider reports it failed.
 * - `completed`: it is gone and reported completed, or the cluster reached its version;
 *   `startWasUnseen` when it went from scheduled to done between two snapshots (the `started`
 *   event is still sent, but no `started` history step recorded).
 * - `cancelled-at-provider`: it is gone with neither (someone removed it at the provider).
 * - `started`: the provider reports an upgrade running that was not stored as running; its
 *   `fromVersion` is the snapshot's version.
 */
export type UpgradeTransition =
  | (TransitionBase & { kind: 'failed'; message: string | null })
  | (TransitionBase & { kind: 'completed'; startWasUnseen: boolean })
  | (TransitionBase & { kind: 'cancelled-at-provider'; message: string })
  | (TransitionBase & { kind: 'started' });

const REMOVED_AT_PROVIDER = 'removed at the provider';

export interface SnapshotObservation {
  inserts: NewClusterRow[];
  updates: ClusterRowUpdate[];
  /** stored clusters the provider no longer reports (and could read): marked gone, never deleted */
  gone: { id: number; name: string }[];
  /** the missed-snapshot count to store for clusters it changed for (missed again, or listed again) */
  missed: { id: number; count: number }[];
  /** set when the snapshot matched none of the stored clusters: how many were not marked gone for it */
  goneWithheld?: number;
  /** in snapshot order; per cluster the end of its stored upgrade before the start of a new one */
  transitions: UpgradeTransition[];
}

/** `version` is valid SemVer and at or past `target` (an invalid one never is). */
export function reachedVersion(version: string, target: string): boolean {
  return isSemver(version) && isSemver(target) && compareVersions(version, target) >= 0;
}

/** The cluster's upgrade state given the provider's current upgrade. */
function upgradeStateOf(current: ObservedUpgrade | null, previous: string, failedNow: boolean): ClusterUpgradeState {
  if (current) return current.state === 'started' ? 'upgrading' : 'scheduled';
  if (failedNow) return 'failed';
  return previous === 'failed' ? 'failed' : 'idle';
}

/** The stored form of the provider's current upgrade (the phase is not kept). */
function storedUpgradeOf(u: ObservedCluster['currentUpgrade']): ObservedUpgrade | null {
  if (!u) return null;
  return {
    version: u.version,
    nextRun: u.nextRun,
    state: u.state,
    ...(u.startedAt ? { startedAt: u.startedAt } : {}),
    ...(u.progress !== undefined ? { progress: u.progress } : {}),
  };
}

/** How the stored upgrade `before` ended, now that the provider no longer reports it as current. */
function endOfStoredUpgrade(prev: KnownCluster, before: ObservedUpgrade, snap: ObservedCluster): UpgradeTransition {
  const base = { clusterId: prev.id, cluster: prev.name, fromVersion: prev.version, toVersion: before.version };
  const last = snap.lastUpgrade && snap.lastUpgrade.version === before.version ? snap.lastUpgrade : null;
  if (last?.state === 'failed') return { ...base, kind: 'failed', message: last.message ?? null };
  if (last?.state === 'completed' || reachedVersion(snap.version, before.version))
    return { ...base, kind: 'completed', startWasUnseen: before.state === 'scheduled' };
  return { ...base, kind: 'cancelled-at-provider', message: REMOVED_AT_PROVIDER };
}

/**
 * Matches each snapshot to its stored cluster (by provider id, else by name) and returns the rows
 * to write, the lifecycle transitions since the stored state, and the stored clusters that are
 * gone: missing from GONE_AFTER_MISSED_SNAPSHOTS snapshots in a row, and not among `unread` (the
 * names the provider listed but could not read: those are still there). A gone cluster that is
 * reported again is back (its state follows the snapshot again).
 */
export function observeSnapshots(
  stored: readonly KnownCluster[],
  snaps: readonly ObservedCluster[],
  unread: ReadonlySet<string> = new Set(),
): SnapshotObservation {
  const byExternal = new Map(stored.map((s) => [s.externalId, s]));
  const byName = new Map(stored.map((s) => [s.name, s]));
  const result: SnapshotObservation = { inserts: [], updates: [], transitions: [], gone: [], missed: [] };
  const seen = new Set<number>();
  for (const snap of snaps) {
    const prev = byExternal.get(snap.externalId) ?? byName.get(snap.name);
    if (prev) {
      seen.add(prev.id);
      if ((prev.missedSnapshots ?? 0) > 0) result.missed.push({ id: prev.id, count: 0 });
    }
    const current = storedUpgradeOf(snap.currentUpgrade);
    const row = {
      version: snap.version,
      channel: snap.channel,
      availableUpgrades: snap.availableUpgrades,
      healthy: snap.healthy,
      healthIssues: snap.healthIssues,
      currentUpgrade: current,
      discovery: snap.discovery ?? null,
      pendingVersionGates: snap.pendingVersionGates ?? [],
      inhibitors: snap.inhibitors ?? null,
    };
    if (!prev) {
      result.inserts.push({ name: snap.name, externalId: snap.externalId, ...row, upgradeState: upgradeStateOf(current, 'idle', false) });
      continue;
    }
    const before = prev.currentUpgrade;
    let failedNow = false;
    if (before && (!current || current.version !== before.version)) {
      const end = endOfStoredUpgrade(prev, before, snap);
      failedNow = end.kind === 'failed';
      result.transitions.push(end);
    }
    if (current?.state === 'started' && !(before?.state === 'started' && before.version === current.version)) {
      result.transitions.push({
        kind: 'started',
        clusterId: prev.id,
        cluster: prev.name,
        fromVersion: snap.version,
        toVersion: current.version,
      });
    }
    result.updates.push({ id: prev.id, ...row, upgradeState: upgradeStateOf(current, prev.upgradeState, failedNow) });
  }
  // A snapshot that matches none of the stored clusters (an empty list, another organization's
  // credentials) says more about the provider than about the fleet: nothing is marked gone then.
  const matchedNone = seen.size === 0 && unread.size === 0 && stored.some((s) => s.upgradeState !== 'gone');
  if (matchedNone) {
    result.goneWithheld = stored.filter((s) => s.upgradeState !== 'gone').length;
    return result;
  }
  for (const s of stored) {
    if (seen.has(s.id) || unread.has(s.name) || s.upgradeState === 'gone') continue;
    const missed = (s.missedSnapshots ?? 0) + 1;
    result.missed.push({ id: s.id, count: missed });
    if (missed >= GONE_AFTER_MISSED_SNAPSHOTS) result.gone.push({ id: s.id, name: s.name });
  }
  return result;
}

/** The stored clusters after `updates` were written, without reading them back. */
export function withClusterRowUpdates<S extends KnownCluster & { healthy: boolean; healthIssues: string[] }>(
  stored: readonly S[],
  updates: readonly ClusterRowUpdate[],
): S[] {
  const byId = new Map(updates.map((u) => [u.id, u]));
  return stored.map((s) => {
    const u = byId.get(s.id);
    return u
      ? {
          ...s,
          version: u.version,
          currentUpgrade: u.currentUpgrade,
          upgradeState: u.upgradeState,
          healthy: u.healthy,
          healthIssues: u.healthIssues,
        }
      : s;
  });
}

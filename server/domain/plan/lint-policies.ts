/**
 * Policy lint: things that are valid but almost certainly not what the author meant. Warnings,
 * never errors; each names the field to look at.
 */
import { providerPausesWorkerPools } from '../lifecycle/eus-procedure';
import { patternMatches } from './blocked-versions';
import { compileSchedule, listRuns } from './cron-schedule';
import { parseInstant } from './time';
import { canaryPoliciesOf, canarySetsOf } from './canaries';
import type { Cluster, PlanInput, UpgradePolicy, Warning } from './types';
import type { GraphIndex } from '@/server/domain/path/update-graph-index';
import { compareVersions } from '../version/version';
import { sortChannelNames } from '../version/channel-names';
import { boundsForCluster, type BoundKind, type VersionBound } from './version-bounds';
import { effectiveStop } from './route-following';

type Managed = { cluster: Cluster & { upgradePolicy: UpgradePolicy }; index: number };

function managedClusters(input: PlanInput): Managed[] {
  const out: Managed[] = [];
  input.clusters.forEach((cluster, index) => {
    if (cluster.upgradePolicy) out.push({ cluster: cluster as Managed['cluster'], index });
  });
  return out;
}

function lintSoakStarters(managed: Managed[], warnings: Warning[]): void {
  const byWorkload = new Map<string, Managed[]>();
  for (const m of managed) {
    for (const w of m.cluster.upgradePolicy.workloads) {
      const list = byWorkload.get(w) ?? [];
      list.push(m);
      byWorkload.set(w, list);
    }
  }
  for (const [w, list] of byWorkload) {
    const starters = list.filter((m) => (m.cluster.upgradePolicy.conditions.soakDays ?? 0) === 0);
    if (starters.length > 0) continue;
    const first = list[0] as Managed;
    warnings.push({
      code: 'WORKLOAD_WITHOUT_SOAK_STARTER',
      path: `clusters[${first.index}].upgradePolicy.conditions.soakDays`,
      message: `no cluster running workload ${w} has soakDays 0, so new versions never start soaking for it (${list.length} cluster(s) wait on each other)`,
    });
  }
}

function lintSectors(input: PlanInput, managed: Managed[], warnings: Warning[]): void {
  const sectors = new Map(input.organization.sectors.map((s) => [s.name, s]));
  const hosted = new Map<string, Set<string>>();
  for (const m of managed) {
    const s = m.cluster.upgradePolicy.conditions.sector;
    if (s === undefined) continue;
    const set = hosted.get(s) ?? new Set<string>();
    for (const w of m.cluster.upgradePolicy.workloads) set.add(w);
    hosted.set(s, set);
  }
  input.organization.sectors.forEach((sector, i) => {
    const own = hosted.get(sector.name);
    if (sector.dependencies.length === 0 || !own || own.size === 0) return;
    // Everything reachable through dependencies (look-through reaches all of them eventually).
    const reachable = new Set<string>();
    const stack = [...sector.dependencies];
    while (stack.length) {
      const d = stack.pop() as string;
      if (reachable.has(d)) continue;
      reachable.add(d);
      stack.push(...(sectors.get(d)?.dependencies ?? []));
    }
    const gated = [...own].filter((w) => [...reachable].some((d) => hosted.get(d)?.has(w)));
    if (gated.length === 0) {
      warnings.push({
        code: 'SECTOR_DEPENDENCIES_HOST_NO_WORKLOAD',
        path: `organization.sectors[${i}].dependencies`,
        message: `no dependency of sector ${sector.name} runs any of its workloads (${[...own].join(', ')}), so the dependencies never gate it`,
      });
    }
  });
}

function lintMutexes(managed: Managed[], warnings: Warning[]): void {
  const users = new Map<string, { index: number; j: number }[]>();
  for (const m of managed) {
    m.cluster.upgradePolicy.conditions.mutexes.forEach((mutex, j) => {
      const list = users.get(mutex) ?? [];
      list.push({ index: m.index, j });
      users.set(mutex, list);
    });
  }
  for (const [mutex, list] of users) {
    if (list.length !== 1) continue;
    const only = list[0] as { index: number; j: number };
    warnings.push({
      code: 'MUTEX_SINGLE_CLUSTER',
      path: `clusters[${only.index}].upgradePolicy.conditions.mutexes[${only.j}]`,
      message: `mutex ${mutex} is used by one cluster only, so it never excludes anything`,
    });
  }
}

/**
 * `maxParallelUpgrades` counts only clusters of the sector that share a mutex: a sector whose
 * clusters share none is not limited at all (all of them may upgrade at once). Say so, and point
 * at `maxConcurrentUpgrades`, which limits the sector's upgrades whatever the mutexes.
 */
function lintParallelLimits(input: PlanInput, managed: Managed[], warnings: Warning[]): void {
  input.organization.sectors.forEach((sector, i) => {
    if (!sector.maxParallelUpgrades) return;
    const members = managed.filter((m) => m.cluster.upgradePolicy.conditions.sector === sector.name);
    if (members.length < 2) return;
    const holders = new Map<string, number>();
    for (const m of members)
      for (const mutex of m.cluster.upgradePolicy.conditions.mutexes) holders.set(mutex, (holders.get(mutex) ?? 0) + 1);
    if ([...holders.values()].some((n) => n >= 2)) return;
    warnings.push({
      code: 'MAX_PARALLEL_LIMITS_NOTHING',
      path: `organization.sectors[${i}].maxParallelUpgrades`,
      message: `maxParallelUpgrades ${sector.maxParallelUpgrades.raw} limits nothing: it counts clusters sharing a mutex, and none of the ${members.length} clusters of sector ${sector.name} share one (maxConcurrentUpgrades limits the sector's upgrades at once)`,
    });
  });
}

function lintBlockedVersions(input: PlanInput, managed: Managed[], warnings: Warning[]): void {
  const lint = (pattern: string, path: string, versions: string[]): void => {
    if (versions.length === 0) return;
    const matched = versions.filter((v) => patternMatches(pattern, v));
    if (matched.length === 0) {
      warnings.push({
        code: 'BLOCKED_VERSION_MATCHES_NOTHING',
        path,
        message: `'${pattern}' matches none of the ${versions.length} available version(s)`,
      });
    } else if (matched.length === versions.length) {
      warnings.push({
        code: 'BLOCKED_VERSION_BLOCKS_ALL',
        path,
        message: `'${pattern}' blocks every available version (${versions.length})`,
      });
    }
  };
  const all = [...new Set(managed.flatMap((m) => m.cluster.availableUpgrades))];
  input.organization.blockedVersions.forEach((p, i) => lint(p, `organization.blockedVersions[${i}]`, all));
  for (const m of managed) {
    m.cluster.upgradePolicy.conditions.blockedVersions.forEach((p, j) =>
      lint(p, `clusters[${m.index}].upgradePolicy.conditions.blockedVersions[${j}]`, m.cluster.availableUpgrades),
    );
  }
}

function lintSchedules(input: PlanInput, managed: Managed[], warnings: Warning[]): void {
  const nowMs = parseInstant(input.now) ?? 0;
  const never = new Map<string, boolean>();
  for (const m of managed) {
    const { schedule } = m.cluster.upgradePolicy;
    const compiled = compileSchedule(schedule);
    if (!compiled) continue;
    let fires = never.get(compiled.key);
    if (fires === undefined) {
      fires = listRuns(compiled, nowMs, 1).length > 0;
      never.set(compiled.key, fires);
    }
    if (!fires) {
      const path = `clusters[${m.index}].upgradePolicy.schedule${typeof schedule === 'object' && (schedule.location !== 'UTC' || schedule.isoWeek) ? '.cron' : ''}`;
      warnings.push({ code: 'SCHEDULE_NEVER_FIRES', path, message: `schedule '${schedule.cron}' never fires (no run within 8 years)` });
    }
  }
}

/**
 * A sector's gates that hold nothing: an after-gate on a sector no other sector follows, and a
 * notBefore already past (sector-gates.ts). Valid, and harmless, but likely not what was meant.
 */
function lintSectorGates(input: PlanInput, warnings: Warning[]): void {
  const nowMs = parseInstant(input.now) ?? 0;
  const followed = new Set(input.organization.sectors.flatMap((s) => s.dependencies));
  input.organization.sectors.forEach((sector, i) => {
    if (sector.approval?.after && !followed.has(sector.name)) {
      warnings.push({
        code: 'APPROVAL_AFTER_GATES_NOTHING',
        path: `organization.sectors[${i}].approval.after`,
        message: `approval.after of sector ${sector.name} holds nothing: no sector depends on it`,
      });
    }
    if (sector.notBefore && sector.notBefore.at <= nowMs) {
      warnings.push({
        code: 'NOT_BEFORE_PASSED',
        path: `organization.sectors[${i}].notBefore`,
        message: `notBefore ${sector.notBefore.raw} of sector ${sector.name} has passed: it holds nothing any more`,
      });
    }
  });
}

/**
 * Canaries that test nothing (canaries.ts): a sector whose every cluster is a canary (nobody
 * waits for them), or whose selector matches none of its clusters (nobody goes first, so nobody
 * waits). Valid, but likely not what was meant.
 */
function lintCanaries(input: PlanInput, managed: Managed[], warnings: Warning[]): void {
  const sets = canarySetsOf(
    canaryPoliciesOf(input),
    managed.map((m) => m.cluster),
  );
  input.organization.sectors.forEach((sector, i) => {
    const set = sets.get(sector.name);
    if (!set) return;
    if (set.canaries.length === 0) {
      warnings.push({
        code: 'CANARY_SELECTOR_MATCHES_NONE',
        path: `organization.sectors[${i}].canary.selector`,
        message: `the canary selector of sector ${sector.name} matches none of its ${set.members} clusters: no canary goes first, nobody waits`,
      });
    } else if (set.canaries.length === set.members) {
      warnings.push({
        code: 'CANARIES_ARE_THE_WHOLE_SECTOR',
        path: `organization.sectors[${i}].canary`,
        message: `every cluster of sector ${sector.name} is a canary (${set.canaries.length}): nobody waits for them`,
      });
    }
  });
}

/** What the stored update graphs hold, for the lint: their minors (`4.16`) and channels. */
export type GraphCoverage = { minors: ReadonlySet<string>; releases: ReadonlySet<string>; channels: readonly string[] };

const coverageOf = new WeakMap<GraphIndex, GraphCoverage>();

/** The minors and channels of a graph index (kept per index: it is immutable). */
export function graphCoverage(index: GraphIndex): GraphCoverage {
  let hit = coverageOf.get(index);
  if (!hit) {
    const minors = new Set<string>();
    const channels = new Set<string>();
    for (let id = 0; id < index.size; id++) {
      const p = index.parsed[id]!;
      if (p.prerelease.length === 0) minors.add(`${p.major}.${p.minor}`);
      for (const c of index.channels[id] ?? []) channels.add(c);
    }
    hit = { minors, releases: new Set(index.versions), channels: sortChannelNames(channels) };
    coverageOf.set(index, hit);
  }
  return hit;
}

const CHANNELS_NAMED = 8;

function minorOf(bound: VersionBound): string {
  if (bound.kind === 'minor') return `${bound.major}.${bound.minor}`;
  const [major, minor] = bound.version.split('.');
  return `${major}.${minor}`;
}

/**
 * A target (or the cap that stops a cluster with a target) in a minor no stored update graph
 * holds: the route to it is never found, so the cluster waits NO_ROUTE until such a graph is
 * stored. A cap alone routes nothing (a cap above every stored minor is common and harmless), so
 * a cap is named only where it is some cluster's stop. Nothing without stored graphs.
 */
function lintBoundsAgainstGraphs(input: PlanInput, managed: Managed[], coverage: GraphCoverage, warnings: Warning[]): void {
  const org = input.organization;
  const levels: { path: string; level: { targetVersion?: VersionBound; maxVersion?: VersionBound } }[] = [
    { path: 'organization', level: org },
    ...org.sectors.map((s, i) => ({ path: `organization.sectors[${i}]`, level: s })),
    ...managed.map((m) => ({ path: `clusters[${m.index}].upgradePolicy.conditions`, level: m.cluster.upgradePolicy.conditions })),
  ];
  const stops = new Set<VersionBound>();
  for (const m of managed) {
    const stop = effectiveStop(boundsForCluster(org, m.cluster.upgradePolicy.conditions));
    if (stop) stops.add(stop);
  }
  const named = coverage.channels.slice(0, CHANNELS_NAMED).join(', ');
  const more = coverage.channels.length > CHANNELS_NAMED ? ` and ${coverage.channels.length - CHANNELS_NAMED} more` : '';
  const held = [...coverage.minors].sort((a, b) => compareVersions(`${a}.0`, `${b}.0`));
  const range = held.length ? `${held[0]}–${held[held.length - 1]}` : 'none';
  for (const { path, level } of levels) {
    for (const kind of ['targetVersion', 'maxVersion'] as const satisfies readonly BoundKind[]) {
      const bound = level[kind];
      if (!bound) continue;
      if (kind === 'maxVersion' && !stops.has(bound)) continue;
      if (coverage.minors.has(minorOf(bound))) {
        // an exact target the graphs do not hold: no route ends there either
        if (bound.kind === 'release' && kind === 'targetVersion' && !coverage.releases.has(bound.version))
          warnings.push({
            code: 'BOUND_RELEASE_NOT_IN_GRAPHS',
            path: `${path}.${kind}`,
            message: `${kind} ${bound.raw} is no release of the stored update graphs: a cluster routed there waits with NO_ROUTE; target the minor (${minorOf(bound)}.*) or a release the graphs hold`,
          });
        continue;
      }
      warnings.push({
        code: 'BOUND_MINOR_NOT_IN_GRAPHS',
        path: `${path}.${kind}`,
        message: `${kind} ${bound.raw} is in minor ${minorOf(bound)}, which no stored update graph holds (minors ${range}): a cluster routed there waits with NO_ROUTE until a graph with it is stored; channels stored: ${named || 'none'}${more}`,
      });
    }
  }
}

/**
 * Warnings for a validated input: workloads nobody starts soaking, sectors whose dependencies
 * never gate them, single-cluster mutexes, maxParallelUpgrades without a shared mutex, blocked-version regexes that match nothing or
 * everything available, schedules that never fire, sector gates that hold nothing, canaries that test nothing,
 * and (given the stored update graphs) targets in a minor no graph holds.
 */
/**
 * lifecycle.eusControlPlaneOnly needs MachineConfigPools to pause: the Kubernetes provider and the
 * simulator have them; on OCM (whose upgrade service rolls the workers itself) the option is not
 * applied and each hop of an EUS-to-EUS route stays an upgrade of its own.
 */
function lintEusProcedure(managed: Managed[], provider: string | undefined, warnings: Warning[]): void {
  if (providerPausesWorkerPools(provider)) return;
  for (const m of managed) {
    if (!m.cluster.upgradePolicy.lifecycle?.eusControlPlaneOnly) continue;
    warnings.push({
      code: 'EUS_PROCEDURE_UNSUPPORTED',
      path: `clusters[${m.index}].upgradePolicy.lifecycle.eusControlPlaneOnly`,
      message: `the ${provider} provider cannot pause MachineConfigPools: the EUS-to-EUS control-plane-only procedure is not applied (each hop of the route is an upgrade of its own); it needs the Kubernetes provider`,
    });
  }
}

/**
 * `context.provider`: the organization's provider kind, for the rules that depend on it;
 * `context.graphs`: the stored update graphs' coverage (targets in a minor none holds)
 */
export function lintPolicies(input: PlanInput, context: { provider?: string; graphs?: GraphCoverage } = {}): Warning[] {
  const managed = managedClusters(input);
  const warnings: Warning[] = [];
  lintSoakStarters(managed, warnings);
  lintSectors(input, managed, warnings);
  lintMutexes(managed, warnings);
  lintParallelLimits(input, managed, warnings);
  lintBlockedVersions(input, managed, warnings);
  lintSchedules(input, managed, warnings);
  lintSectorGates(input, warnings);
  lintCanaries(input, managed, warnings);
  if (context.graphs) lintBoundsAgainstGraphs(input, managed, context.graphs, warnings);
  lintEusProcedure(managed, context.provider, warnings);
  return warnings;
}

// The stored fleet through evaluateFleet with the stored gates, as the scheduler's next tick
// would see it (soak accumulated up to the current fleet minute). The views that show decisions,
// soak or sector progress read this instead of re-deriving the rules from SQL.
//
// On 10,000 clusters loading and validating the stored fleet costs ~0.3 s and deciding it ~0.2 s,
// and the Fleet table, the Sectors page, a cluster's detail and its "why not", and every metrics
// scrape each need it. So it is kept per database connection in two layers:
// - the validated input and the gates, until the data version moves (readDataVersion: any row
//   written by this connection, any commit by another). The fleet clock alone does not reload
//   them: only `now` (and which exclusions have ended) differ from one minute to the next.
//   Every scheduler tick writes (soak figures, its own rows), but it seldom changes the clusters:
//   while the plan structure revision (readPlanStructureRevision: triggers on clusters, sectors,
//   blocked versions and the organization) stays, only the soak figures and the cheap gates
//   (exclusions, halts, the health-gate switch) are read again and the validated clusters kept,
//   with what the gates read from the clusters' rows (health issues, version gates, inhibitors);
//   when it moved only because some clusters' planned columns did (a tick's upgrade progress, a
//   new version, health: the 'cluster_rows' revision moved by as much, migration 0022), only those
//   rows are read, validated and put in place (at 10,000 clusters the whole load is ~0.1 s of
//   reading and ~0.06 s of validating on the request thread, after nearly every tick of a live
//   fleet); a cluster added, removed, gone, back, renamed or moved, or a change of anything else
//   in the structure loads it whole;
// - per fleet minute, the engine's view of it: the candidate verdicts (soak, blocked, sector) at
//   once, the decisions only when asked for (no view of the Fleet table or the metrics needs them).
// The scheduler tick never reads it (it evaluates the snapshot it just took), so the cache cannot
// change what the scheduler does.
import type { Db } from '@/db/open-database';
import {
  evaluateFleet,
  fleetVersionView,
  type ClusterEvaluation,
  type FleetEvaluation,
  type FleetVersionView,
  type NeverUpgrades,
} from '@/server/domain/evaluation/evaluate-fleet';
import { formatInstant } from '@/server/domain/plan/time';
import type { Cluster, PlanInput, Problem } from '@/server/domain/plan/types';
import { orderManagedClusters, type ManagedCluster } from '@/server/domain/plan/decide-upgrades';
import type { PlanDocument } from '@/server/repositories/plan-document-repository';
import { validatePlanInput } from '@/server/domain/plan/validate-plan-input';
import { revalidateVersionData, type ValidatedVersionData } from '@/server/domain/plan/revalidate-version-data';
import type { GateState } from '@/server/domain/scheduling/apply-gates';
import { readDataVersion, readPlanRowRevisions } from '@/server/repositories/data-version-repository';
import { readSoakCheckIn } from '@/server/repositories/organization-repository';
import { loadChangedPlanClusters, loadPlanDocument, loadVersionData } from '@/server/repositories/plan-document-repository';
import {
  loadGateState,
  loadGateStateWithClusterFacts,
  type ClusterGateFacts,
  type GateOrganization,
} from '@/server/repositories/gate-state-repository';
import { listUpgradeResults } from '@/server/repositories/lifecycle-repository';
import { keepRecent } from '@/lib/keep-recent';

const MINUTE_MS = 60_000;
/** cluster explanations kept per evaluation (each costs one engine run over the fleet) */
const EXPLANATIONS_KEPT = 64;
/**
 * Past this share of the fleet changed, the whole fleet is loaded again: reading and validating
 * rows one by one stops paying off, and a full load also drops what a long run of patches kept.
 */
const MOST_CHANGED_SHARE = 0.25;

/** Shared between callers while the data and the minute stay the same: read it, never modify it. */
export type StoredFleetEvaluation =
  | {
      ok: true;
      input: PlanInput;
      /** the gates the decisions are taken with (the health issues, holds and halts as stored) */
      gates: GateState;
      /** candidate versions, soak and sector floors at the minute (no decisions: cheap) */
      view: FleetVersionView;
      /** the full evaluation with the gated decisions, computed on first use */
      readonly evaluation: FleetEvaluation;
      /** the engine's explanation of one cluster in this same evaluation (null: no such cluster) */
      explain(cluster: string): ClusterEvaluation | null;
    }
  | { ok: false; problems: Problem[] };

/**
 * The instant views evaluate at: the start of the fleet minute. Schedules are cron minutes and a
 * tick runs once a minute, so within a minute only the soak figures would creep on.
 */
export function evaluationInstant(now: Date): Date {
  return new Date(Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS);
}

/** The stored fleet as validated at `loadedAt`, with its gates; valid for later minutes too. */
type LoadedFleet = {
  key: string;
  loadedAt: number;
  /** the plan structure and 'cluster_rows' revisions it was loaded at (null: unknown, never reused) */
  revisions: PlanRowRevisions | null;
  parsed:
    | {
        ok: true;
        input: PlanInput;
        gates: GateState;
        /** the organization as its document was read: changed clusters are validated against it */
        organization: PlanDocument['organization'];
        /** each cluster's index in input.clusters (built on the first patch or explanation; patches keep names and order) */
        positions?: ReadonlyMap<string, number>;
        /** the soak figures as read and as validated: the next read's unchanged reporting lists are not validated again */
        soakFigures: ValidatedVersionData;
      }
    | { ok: false; problems: Problem[] };
  /**
   * Who will never upgrade as configured: it follows the structure, not the minute or the soak
   * figures a tick writes (a version whose soak still grows is reachable by definition, and one
   * whose soak does not grow keeps its figure), so it is worked out once per structure.
   */
  never?: ReadonlyMap<string, NeverUpgrades>;
};

type PlanRowRevisions = NonNullable<Awaited<ReturnType<typeof readPlanRowRevisions>>>;

const loadCounts = { full: 0, soakAndGates: 0 };
let changedClusterLoads = 0;

/** How often the stored fleet was loaded whole, or only its soak figures and gates (tests observe the cache with it). */
export function storedFleetLoadCounts(): { full: number; soakAndGates: number } {
  return { ...loadCounts };
}

/** How often only the changed clusters were read and put in place (with the soak figures and gates). */
export function storedFleetChangedClusterLoads(): number {
  return changedClusterLoads;
}

/** per database connection and organization: each organization's fleet is kept apart (its structure is never reused for another) */
const loaded = new WeakMap<Db['$client'], Map<number, LoadedFleet>>();
const lastEvaluation = new WeakMap<Db['$client'], Map<number, { key: string; at: number; result: StoredFleetEvaluation }>>();

function perOrganization<T>(map: WeakMap<Db['$client'], Map<number, T>>, db: Db): Map<number, T> {
  let m = map.get(db.$client);
  if (!m) map.set(db.$client, (m = new Map<number, T>()));
  return m;
}

export async function evaluateStoredFleet(db: Db, org: GateOrganization, now: Date): Promise<StoredFleetEvaluation> {
  const at = evaluationInstant(now);
  // read before loading: a write that lands later moves the version and is seen by the next call
  const dataVersion = await readDataVersion(db);
  if (dataVersion === null) return atMinute(await load(db, org, at, '', null), at);
  // The stored check-in counts only once the clock has passed it (loadPlanDocument), so whether
  // it does is part of what was loaded.
  const checkIn = await readSoakCheckIn(db, org.id);
  const checkInCounts = checkIn !== null && checkIn.getTime() <= at.getTime();
  const key = JSON.stringify([dataVersion, org.id, org.frozen, org.frozenReason ?? null, checkInCounts]);
  const cached = perOrganization(lastEvaluation, db).get(org.id);
  if (cached?.key === key && cached.at === at.getTime()) return cached.result;
  let fleet = perOrganization(loaded, db).get(org.id);
  // an earlier minute than the load's could need exclusions that had ended by then
  if (fleet?.key !== key || fleet.loadedAt > at.getTime()) {
    fleet = await reload(db, org, at, key, fleet, await readPlanRowRevisions(db));
    perOrganization(loaded, db).set(org.id, fleet);
  }
  const result = atMinute(fleet, at);
  perOrganization(lastEvaluation, db).set(org.id, { key, at: at.getTime(), result });
  return result;
}

/** As little as the revisions allow: the soak figures and gates, the changed clusters with them, or the whole fleet. */
async function reload(
  db: Db,
  org: GateOrganization,
  at: Date,
  key: string,
  previous: LoadedFleet | undefined,
  revisions: PlanRowRevisions | null,
): Promise<LoadedFleet> {
  const was = previous?.revisions;
  if (!previous?.parsed.ok || !was || !revisions || previous.loadedAt > at.getTime()) return await load(db, org, at, key, revisions);
  const structureMoves = revisions.structure - was.structure;
  const clusterRowMoves = revisions.clusterRows - was.clusterRows;
  if (structureMoves === 0 && clusterRowMoves === 0) return await reloadSoakAndGates(db, org, at, key, previous, revisions);
  // every structure move was a cluster's own planned columns changing
  if (structureMoves === clusterRowMoves && structureMoves > 0) return await reloadChangedClusters(db, org, at, key, previous, revisions);
  return await load(db, org, at, key, revisions);
}

async function load(db: Db, org: GateOrganization, at: Date, key: string, revisions: PlanRowRevisions | null): Promise<LoadedFleet> {
  loadCounts.full++;
  const document = await loadPlanDocument(db, org.id, at);
  const parsed = validatePlanInput(document);
  if (!parsed.ok) return { key, loadedAt: at.getTime(), revisions, parsed: { ok: false, problems: parsed.problems } };
  return {
    key,
    loadedAt: at.getTime(),
    revisions,
    parsed: {
      ok: true,
      input: parsed.input,
      gates: await loadGateState(db, org, at),
      organization: document.organization,
      // validatePlanInput validates the versionData as validateVersionData does
      soakFigures: { raw: document.versionData, versionData: parsed.input.versionData },
    },
  };
}

/**
 * Only some clusters' planned columns changed: those rows are read, validated against the
 * organization as loaded (a cluster's validation and its sector by selector depend on nothing
 * else) and put at their places; what the gates read of them (health issues, version gates,
 * inhibitors) replaces what they had. Who never upgrades is worked out again. Anything else (a cluster gone or back, too many changed, a
 * changed cluster that does not validate: its problems are told as a whole load tells them)
 * loads the whole fleet.
 */
async function reloadChangedClusters(
  db: Db,
  org: GateOrganization,
  at: Date,
  key: string,
  previous: LoadedFleet,
  revisions: PlanRowRevisions,
): Promise<LoadedFleet> {
  if (!previous.parsed.ok || !previous.revisions) return await load(db, org, at, key, revisions);
  const { input, gates, organization, soakFigures } = previous.parsed;
  const changed = await loadChangedPlanClusters(db, org.id, previous.revisions.clusterRows);
  if (changed.length > input.clusters.length * MOST_CHANGED_SHARE) return await load(db, org, at, key, revisions);
  const positions = previous.parsed.positions ?? new Map(input.clusters.map((c, i) => [c.name, i]));
  const planned: PlanDocument['clusters'] = [];
  for (const { cluster, gone } of changed) {
    // a cluster leaving or coming back changes who is planned for, and where
    if (gone !== !positions.has(cluster.name)) return await load(db, org, at, key, revisions);
    if (!gone) planned.push(cluster);
  }
  const validated = validatePlanInput({ now: formatInstant(at.getTime()), organization, clusters: planned });
  if (!validated.ok) return await load(db, org, at, key, revisions);
  changedClusterLoads++;
  const clusters = [...input.clusters];
  for (const cluster of validated.input.clusters) clusters[positions.get(cluster.name)!] = cluster;
  // the gates' facts are every stored cluster's, gone ones too (gate-state-repository.ts), and
  // only of those that have some
  const healthIssues = new Map(gates.healthIssues);
  const versionGates = new Map(gates.versionGates);
  const inhibitors = new Map(gates.inhibitors);
  const put = <T>(map: Map<string, T>, name: string, value: T | null) => (value === null ? map.delete(name) : map.set(name, value));
  for (const c of changed) {
    put(healthIssues, c.cluster.name, c.healthIssues.length > 0 ? c.healthIssues : null);
    put(versionGates, c.cluster.name, c.pendingVersionGates.length > 0 ? c.pendingVersionGates : null);
    put(inhibitors, c.cluster.name, c.inhibitors);
  }
  const patched: LoadedFleet = {
    ...previous,
    parsed: {
      ok: true,
      input: { ...input, clusters },
      gates: { ...gates, healthIssues, versionGates, inhibitors },
      organization,
      positions,
      soakFigures,
    },
    never: undefined,
  };
  return await reloadSoakAndGates(db, org, at, key, patched, revisions);
}

/**
 * The clusters, sectors and organization are as loaded (the structure revision has not moved):
 * only the soak figures, exclusions, halts and the health-gate switch are read again. The
 * clusters' health issues, version gates and inhibitors are part of the structure, so they are
 * kept with it.
 */
async function reloadSoakAndGates(
  db: Db,
  org: GateOrganization,
  at: Date,
  key: string,
  previous: LoadedFleet,
  revisions: PlanRowRevisions,
): Promise<LoadedFleet> {
  if (!previous.parsed.ok) return await load(db, org, at, key, revisions);
  loadCounts.soakAndGates++;
  const now = formatInstant(at.getTime());
  const soak = revalidateVersionData(await loadVersionData(db, org.id, at), now, previous.parsed.soakFigures);
  if (!soak.ok) return { key, loadedAt: at.getTime(), revisions, parsed: { ok: false, problems: soak.problems } };
  return {
    key,
    loadedAt: at.getTime(),
    revisions,
    parsed: {
      ...previous.parsed,
      input: {
        ...previous.parsed.input,
        now,
        versionData: soak.validated.versionData,
        ...(await upgradeResultsFor(db, org.id, previous.parsed.input)),
      },
      soakFigures: soak.validated,
      gates: await loadGateStateWithClusterFacts(db, org, at, clusterFactsOf(previous.parsed.gates)),
    },
    never: previous.never,
  };
}

/** The per-cluster facts of gates loaded before (loadGateState sets them all). */
function clusterFactsOf(gates: GateState): ClusterGateFacts {
  return { healthIssues: gates.healthIssues, versionGates: gates.versionGates ?? new Map(), inhibitors: gates.inhibitors ?? new Map() };
}

/**
 * The canary sectors' upgrade results read again: an attempt completing, failing or being
 * acknowledged does not move the plan structure, but it moves what the canaries let through.
 */
async function upgradeResultsFor(db: Db, organizationId: number, input: PlanInput): Promise<Pick<PlanInput, 'upgradeResults'>> {
  const sectors = input.organization.sectors.filter((s) => s.canary).map((s) => s.name);
  return sectors.length === 0 ? {} : { upgradeResults: await listUpgradeResults(db, organizationId, sectors) };
}

/**
 * The engine's order of a loaded fleet's clusters, by their array: a soak write or a new minute
 * keeps the array (only a load or a patch makes a new one), and the order depends on nothing else.
 */
const engineOrders = new WeakMap<readonly Cluster[], ManagedCluster[]>();

function engineOrderOf(clusters: readonly Cluster[]): ManagedCluster[] {
  let order = engineOrders.get(clusters);
  if (!order) engineOrders.set(clusters, (order = orderManagedClusters(clusters)));
  return order;
}

function atMinute(fleet: LoadedFleet, at: Date): StoredFleetEvaluation {
  const parsed = fleet.parsed;
  if (!parsed.ok) return { ok: false, problems: parsed.problems };
  const atMs = at.getTime();
  // the loaded input differs from one loaded at `at` only in `now`, and its gates in the
  // exclusions that have ended since (loadGateState keeps those ending after its instant)
  const input: PlanInput = atMs === fleet.loadedAt ? parsed.input : { ...parsed.input, now: formatInstant(atMs) };
  const loadedGates = parsed.gates;
  const gates: GateState =
    atMs === fleet.loadedAt ? loadedGates : { ...loadedGates, exclusions: loadedGates.exclusions.filter((e) => e.endsAt > atMs) };
  const explained = new Map<string, ClusterEvaluation | null>();
  let evaluation: FleetEvaluation | undefined;
  let view: FleetVersionView | undefined;
  return {
    ok: true,
    input,
    gates,
    get view() {
      if (!view) {
        const base = evaluation ?? fleetVersionView(input, { order: engineOrderOf(input.clusters) });
        const never = () => (fleet.never ??= base.allNeverUpgrades());
        view = { ...base, neverUpgrades: (name) => never().get(name) ?? null, allNeverUpgrades: never };
      }
      return view;
    },
    get evaluation() {
      return (evaluation ??= evaluateFleet(input, gates));
    },
    explain(cluster) {
      // the names stay with the fleet as loaded (patches keep them): not a new set every minute
      const positions = (parsed.positions ??= new Map(parsed.input.clusters.map((c, i) => [c.name, i])));
      if (!positions.has(cluster)) return null;
      let explanation = explained.get(cluster);
      if (explanation === undefined) {
        explanation = evaluateFleet(input, gates, { explain: [cluster] }).clusters.get(cluster) ?? null;
        keepRecent(explained, cluster, explanation, EXPLANATIONS_KEPT);
      }
      return explanation;
    },
  };
}

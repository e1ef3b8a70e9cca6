/**
 * One interface for every fleet provider (simulator, OCM, Kubernetes), chosen by configuration
 * (`FLEETPLAN_PROVIDER`). The scheduler only talks to this interface; tests use fakes of it.
 *
 * Reading and acting are separate: `observe` and `observeCluster` never write anything at the
 * provider; `startUpgrade` and `cancelUpgrade` are the only writes to the upgrade, and
 * `approveInstallPlan` the only one to an operator (after a completed platform upgrade).
 */
import type { ClusterInhibitorFacts } from '@/server/domain/lifecycle/inhibitors';
import type { HealthReading, MachineConfigPoolReading, UpgradeableCondition } from '@/server/domain/lifecycle/observation';
import type { InstallPlanReading } from '@/server/domain/lifecycle/operator-approvals';
export type { InstallPlanReading } from '@/server/domain/lifecycle/operator-approvals';
export type CurrentUpgradeState = 'scheduled' | 'started';

export interface ProviderUpgrade {
  version: string;
  /** UTC `YYYY-MM-DDTHH:MM:SSZ` */
  nextRun: string;
  state: CurrentUpgradeState;
  startedAt?: string;
  /** 0..1 when known */
  progress?: number;
  /** started | control-plane | workers, when known */
  phase?: string;
  /** the provider reports the running upgrade as delayed (OCM `delayed`); still under way */
  delayed?: boolean;
  /** what the provider says about it (OCM state description, ClusterVersion Failing/Progressing message) */
  message?: string;
}

export interface FinishedUpgrade {
  fromVersion?: string;
  version: string;
  state: 'completed' | 'failed';
  startedAt?: string;
  completedAt?: string;
  /** for a failure: the provider's reason */
  message?: string;
}

// The health readings are the lifecycle's own types (server/domain/lifecycle/observation.ts):
// providers fill what the gates read, so there is one definition of each.
export type { AlertReading, HealthReading, OperatorReading, UpgradeableCondition } from '@/server/domain/lifecycle/observation';

/** What the provider says about one cluster right now. */
export interface ClusterSnapshot {
  /** the provider's id (OCM cluster id, kubeconfig context, simulator id) */
  externalId: string;
  name: string;
  version: string;
  channel: string;
  /** recommended updates (ClusterVersion status.availableUpdates, OCM available_upgrades) */
  availableUpgrades: string[];
  /** ClusterVersion status.conditionalUpdates[].release.version not also recommended ([] for OCM) */
  conditionalUpgrades: string[];
  /** ClusterVersion condition Upgradeable (False blocks minor upgrades); null = the provider has none */
  upgradeable: UpgradeableCondition | null;
  health: HealthReading;
  /** summary of `health` with the default filters (see summarizeHealth) */
  healthy: boolean;
  healthIssues: string[];
  currentUpgrade: ProviderUpgrade | null;
  /** the most recent finished upgrade, when the provider reports one */
  lastUpgrade?: FinishedUpgrade | null;
  /** discovery: where and what the cluster is, when the provider knows (absent = not reported) */
  discovery?: ClusterDiscovery;
  /**
   * Version gates the cluster has not agreed to, for the minors it is offered (OCM version gates;
   * absent = the provider has none). A fact only: the rule that holds an upgrade for them is the
   * lifecycle's (server/domain/lifecycle/gates.ts, VERSION_GATE).
   */
  pendingVersionGates?: PendingVersionGate[];
  /**
   * Installed operators and removed-API use (Kubernetes: OLM ClusterServiceVersions and
   * APIRequestCount). Absent: not read this time (the stored facts stay). A fact only: the rule
   * that holds an upgrade for them is the lifecycle's (server/domain/lifecycle/inhibitors.ts).
   */
  inhibitors?: ClusterInhibitorFacts;
  /** the MachineConfigPools (absent: the provider has none, e.g. OCM) */
  machineConfigPools?: MachineConfigPoolReading[];
  /**
   * the admin gates the cluster's release declares (ConfigMap openshift-config-managed/admin-gates:
   * its keys, e.g. `ack-4.15-kube-1.29-api-removals-in-4.16`); absent: not read (the provider has
   * none, or may not read it)
   */
  adminGates?: string[];
}

/** A version gate an upgrade to `minor` needs and the cluster has not agreed to. */
export interface PendingVersionGate {
  /** the provider's gate id (OCM `version_gate.id`): what an acknowledgement agrees to */
  id: string;
  /** `4.16`: upgrades to this minor need the agreement */
  minor: string;
  /** what the operator agrees to (OCM `description`, else its `warning_message`) */
  description: string;
  documentationUrl: string | null;
}

/** What a provider reports about a cluster beyond its version: for selection, filters and display. */
export interface ClusterDiscovery {
  /** OCM subscription labels; Kubernetes: labels of the context/cluster (as the provider defines them) */
  labels: Record<string, string>;
  /** aws, gcp, azure, baremetal, … ; null = unknown */
  cloud: string | null;
  region: string | null;
  /** nodes (OCM: nodes.compute + nodes.master/infra; Kubernetes: Node objects); null = unknown */
  nodeCount: number | null;
}

/** A cluster that could not be read this time. */
export interface ClusterReadError {
  externalId: string;
  name: string;
  message: string;
}

export interface FleetSnapshot {
  clusters: ClusterSnapshot[];
  /** clusters that could not be read: marked PROVIDER_ERROR, the tick goes on for the rest */
  errors: ClusterReadError[];
}

export interface ClusterRef {
  externalId: string;
  name: string;
}

export interface StartUpgradeRequest extends ClusterRef {
  version: string;
  /** the slot: when the upgrade is to begin. Providers that cannot hold a future start (Kubernetes) begin at once. */
  at: Date;
  /** stable per start; providers that support it pass it on (deduplication on their side) */
  idempotencyKey: string;
}

export interface CancelUpgradeRequest extends ClusterRef {
  version: string;
  idempotencyKey: string;
}

export interface ApproveInstallPlanRequest extends ClusterRef {
  /** the InstallPlan's namespace and name */
  namespace: string;
  installPlan: string;
  /** stable per (attempt, plan): `{attempt}:approve:{namespace}/{name}` */
  idempotencyKey: string;
}

export interface FleetProvider {
  readonly name: string;
  /** how long before the slot `startUpgrade` must be called (OCM: its minimum lead for next_run plus a margin; others 0) */
  readonly startLeadMs: number;
  /**
   * The provider refuses a start less than this far ahead (OCM: 5 min); 0 = at any time. A start
   * the lifecycle asks for later than that is moved to now + this (still within
   * maxUpgradeStartDelay), never sent to be refused.
   */
  readonly minStartNoticeMs: number;
  /** READ-ONLY. Never writes anything. Consistent per cluster (an upgrade completing mid-read is seen as completed). */
  observe(now: Date): Promise<FleetSnapshot>;
  /**
   * READ-ONLY and cheap: does the provider answer with these credentials? The fleet's size and the
   * first few names (OCM: one page of the cluster list, where `observe` reads every cluster's
   * policies, gates and labels). Absent: a caller that needs the answer reads the whole fleet.
   */
  probe?(now: Date, sample: number): Promise<{ clusters: number; sample: string[] }>;
  /** READ-ONLY fresh read of one cluster, for the start-time gates and post-checks. Throws ProviderError. */
  observeCluster(ref: ClusterRef, now: Date): Promise<ClusterSnapshot>;
  /**
   * The ONLY call that starts an upgrade. Kubernetes: merge-patch spec.desiredUpdate {version, image}.
   * OCM: POST an upgrade policy with next_run = req.at (refused with a ProviderError, without a
   * request, when closer than OCM's minimum lead). Idempotent for the same version: re-reads the
   * cluster first and writes nothing when the upgrade is already there.
   */
  startUpgrade(req: StartUpgradeRequest, now: Date): Promise<void>;
  /** Withdraws an upgrade that has not started (OCM: DELETE its policy). No-op when there is none. */
  cancelUpgrade(req: CancelUpgradeRequest, now: Date): Promise<void>;
  /**
   * Agrees to a version gate for the cluster (OCM: POST gate_agreements), an operator's decision.
   * Exactly once: re-reads the cluster's agreements first and writes nothing when it is already
   * agreed ('already-agreed'). Absent: the provider has no version gates.
   */
  acknowledgeVersionGate?(ref: ClusterRef, gateId: string, now: Date): Promise<'agreed' | 'already-agreed'>;
  /**
   * READ-ONLY: the cluster's OLM InstallPlans (every namespace) with the Subscriptions each belongs
   * to. Absent: the provider has no InstallPlans (OCM), and the operator-approvals phase is skipped
   * with a note. Throws ProviderError.
   */
  listInstallPlans?(ref: ClusterRef, now: Date): Promise<InstallPlanReading[]>;
  /**
   * Approves one InstallPlan (Kubernetes: merge-patch `spec.approved: true`). Exactly once: re-reads
   * the plan first and writes nothing when it is already approved ('already-approved'); the write
   * holds only for the plan as read, and nothing is written when it changed in between
   * ('changed-since-read': read it again next tick, neither done nor failed).
   */
  approveInstallPlan?(req: ApproveInstallPlanRequest, now: Date): Promise<'approved' | 'already-approved' | 'changed-since-read'>;
  /**
   * Switches the cluster's update channel (Kubernetes: merge-patch ClusterVersion `spec.channel`),
   * the first write of a gated start whose hop needs another channel (plan/route-following.ts).
   * Exactly once: re-reads the cluster first and writes nothing when it is already on the channel
   * ('already-set'). Absent: the provider cannot switch channels (such a start is refused).
   */
  setChannel?(ref: ClusterRef, channel: string, now: Date): Promise<'set' | 'already-set'>;
  /**
   * Pauses or unpauses one MachineConfigPool (Kubernetes: merge-patch `spec.paused`), the EUS-to-EUS
   * procedure's writes (lifecycle/eus-procedure.ts). Exactly once: re-reads the pool and writes
   * nothing when it is already in the wanted state ('already-set'). Absent: the provider has no
   * pools (OCM), and lifecycle.eusControlPlaneOnly is not applied.
   */
  setMachineConfigPoolPaused?(ref: ClusterRef, pool: string, paused: boolean, now: Date): Promise<'set' | 'already-set'>;
  /**
   * Acknowledges an admin gate (Kubernetes: merge-patch `data: {GATE: "true"}` on the ConfigMap
   * `admin-acks` in openshift-config, as `oc -n openshift-config patch cm admin-acks` does). Re-reads
   * first: an acknowledged gate is not written again ('already-set').
   */
  acknowledgeAdminGate?(ref: ClusterRef, gate: string, now: Date): Promise<'set' | 'already-set'>;
}

/** What the lifecycle says when a provider has no InstallPlans (the phase is skipped). */
export const noInstallPlansMessage = (provider: string) =>
  `not supported on ${provider === 'ocm' ? 'OCM' : provider}: it has no OLM InstallPlans to approve (approve them on the cluster)`;

export class ProviderError extends Error {
  constructor(
    readonly provider: string,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/**
 * One interface for every fleet provider (simulator, OCM, Kubernetes), chosen by configuration
 * (`FLEETPLAN_PROVIDER`). The scheduler only talks to this interface; tests use fakes of it.
 */
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
}

export interface FinishedUpgrade {
  fromVersion?: string;
  version: string;
  state: 'completed' | 'failed';
  startedAt?: string;
  completedAt?: string;
  message?: string;
}

/** What the provider says about one cluster right now. */
export interface ClusterSnapshot {
  /** the provider's id (OCM cluster id, kubeconfig context, simulator id) */
  externalId: string;
  name: string;
  version: string;
  channel: string;
  availableUpgrades: string[];
  /** false = enforced health errors: no soak contribution, and the health gate skips it */
  healthy: boolean;
  /** degraded operators, firing critical alerts: shown as reasons */
  healthIssues: string[];
  currentUpgrade: ProviderUpgrade | null;
  /** the most recent finished upgrade, when the provider reports one */
  lastUpgrade?: FinishedUpgrade | null;
}

export interface ClusterRef {
  externalId: string;
  name: string;
}

export interface ScheduleUpgradeRequest extends ClusterRef {
  version: string;
  nextRun: Date;
  /** stable per action; providers that support it pass it on (deduplication on their side) */
  idempotencyKey: string;
}

export interface CancelUpgradeRequest extends ClusterRef {
  version: string;
  idempotencyKey: string;
}

export interface FleetProvider {
  readonly name: string;
  /** Current state of every cluster the provider knows, at `now` (the fleet's clock). */
  listClusters(now: Date): Promise<ClusterSnapshot[]>;
  /** The upgrade the cluster has scheduled or running at the provider, if any (for reconciling). */
  findUpgrade(cluster: ClusterRef, now: Date): Promise<ProviderUpgrade | null>;
  scheduleUpgrade(req: ScheduleUpgradeRequest, now: Date): Promise<void>;
  /** Cancels a scheduled upgrade; a no-op when there is none. */
  cancelUpgrade(req: CancelUpgradeRequest, now: Date): Promise<void>;
}

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

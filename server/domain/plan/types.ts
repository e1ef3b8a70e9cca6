/**
 * Types of the `fleetplan plan` decision engine, mirroring the input document of
 * contracts/plan.md after validation and normalization: numbers and strings normalized,
 * defaults filled in, the schedule always in object form.
 *
 * @see tests/contracts/plan.md (vendored from ../shared/contracts/plan.md)
 */
import type { LifecycleOptions } from '@/server/domain/lifecycle/options';
import type { VersionBound } from './version-bounds';
import type { Approval, NotBefore, SectorApprovalGates } from './sector-gates';
import type { CanaryPolicy, UpgradeResult } from './canaries';
import type { LabelSelector } from '../labels/label-selector';

/** One problem found while parsing or validating a plan document. */
export type Problem = { path: string; message: string; line?: number };

export type PlanParseResult = { ok: true; input: PlanInput } | { ok: false; problems: Problem[] };

/** `maxParallelUpgrades`: "N" (N >= 1) or "P%" (1..100, integer). `raw` is the text as written. */
export type MaxParallelUpgrades = { kind: 'count'; value: number; raw: string } | { kind: 'percent'; value: number; raw: string };

export type Sector = {
  name: string;
  maxParallelUpgrades?: MaxParallelUpgrades;
  /** clusters of the sector upgrading at once, whatever their mutexes (beyond the reference) */
  maxConcurrentUpgrades?: MaxParallelUpgrades;
  /** where the sector's clusters stop (version-bounds.ts; beyond the reference) */
  targetVersion?: VersionBound;
  maxVersion?: VersionBound;
  /** approval gates before the sector and after it (sector-gates.ts; beyond the reference); absent = none */
  approval?: SectorApprovalGates;
  /** no upgrade of the sector's clusters starts before this (sector-gates.ts; beyond the reference) */
  notBefore?: NotBefore;
  /** the sector's canaries go first and soak before the rest (canaries.ts; beyond the reference) */
  canary?: CanaryPolicy;
  /**
   * managed clusters whose policy names no sector join the first sector selecting their labels
   * (labels/sector-selectors.ts; beyond the reference); absent = none
   */
  selector?: LabelSelector;
  /** Names of the sectors this one depends on (all known sectors; no cycles). */
  dependencies: string[];
};

export type Organization = {
  name: string;
  blockedVersions: string[];
  /**
   * The instance's blocked versions (the upgrade service's OCM-wide list): they block every
   * organization's clusters beside its own list; blockingPatternOf names them instance-wide.
   */
  instanceBlockedVersions?: string[];
  upgradePolicyAllowedWorkloads?: string[];
  upgradePolicyAllowedMutexes?: string[];
  sectors: Sector[];
  /** where every cluster stops (version-bounds.ts; beyond the reference) */
  targetVersion?: VersionBound;
  maxVersion?: VersionBound;
};

/**
 * Normalized schedule. `isoWeek` is `@odd`, `@even` or a comma-separated list of ISO week
 * numbers; `location` an IANA zone (`UTC` by default).
 */
export type Schedule = {
  cron: string;
  location: string;
  isoWeek?: string;
  suspend: boolean;
};

export type UpgradeConditions = {
  /** Absent means no soak check at all. */
  soakDays?: number;
  mutexes: string[];
  sector?: string;
  /** the sector came from that sector's label selector, the policy naming none (labels/sector-selectors.ts) */
  sectorSelector?: string;
  blockedVersions: string[];
  /** where this cluster stops (version-bounds.ts; beyond the reference) */
  targetVersion?: VersionBound;
  maxVersion?: VersionBound;
};

export type UpgradePolicy = {
  workloads: string[];
  schedule: Schedule;
  conditions: UpgradeConditions;
  /** the lifecycle options when the policy sets any (absent: every default); the engine ignores them */
  lifecycle?: LifecycleOptions;
};

export const CURRENT_UPGRADE_STATES = ['scheduled', 'started'] as const;
export type CurrentUpgradeState = (typeof CURRENT_UPGRADE_STATES)[number];

export type CurrentUpgrade = {
  version: string;
  /** UTC, `YYYY-MM-DDTHH:MM:SSZ`. */
  nextRun: string;
  state: CurrentUpgradeState;
};

export type Cluster = {
  name: string;
  version: string;
  channel?: string;
  availableUpgrades: string[];
  healthy: boolean;
  /** Absent: the cluster is not managed. */
  upgradePolicy?: UpgradePolicy;
  currentUpgrade?: CurrentUpgrade;
  /**
   * The cluster's labels (provider labels overlaid by fleetplan's; beyond the reference): what
   * sector selectors match. Absent = no labels.
   */
  labels?: Record<string, string>;
};

export type WorkloadSoak = { soakDays: number; reporting: string[] };
export type VersionSoak = { workloads: Record<string, WorkloadSoak> };
export type VersionData = {
  checkIn?: string;
  versions: Record<string, VersionSoak>;
};

export type PlanInput = {
  /** UTC, `YYYY-MM-DDTHH:MM:SSZ` (milliseconds kept only when non-zero). */
  now: string;
  organization: Organization;
  clusters: Cluster[];
  versionData: VersionData;
  /** the approvals given to the sectors' gates (sector-gates.ts; beyond the reference); absent = none */
  approvals?: Approval[];
  /**
   * the upgrades seen completed, and the failures not acknowledged, of the canary sectors' clusters
   * (canaries.ts; beyond the reference); absent = none
   */
  upgradeResults?: UpgradeResult[];
};

export const DECISION_REASONS = [
  'UPGRADE_PENDING',
  'VERSION_BLOCKED',
  'SUSPENDED',
  'OUTSIDE_WINDOW',
  'MUTEX_LOCKED',
  'MAX_PARALLEL_UPGRADES',
  'NO_AVAILABLE_UPGRADES',
  'SECTOR_BEHIND',
  'NOT_SOAKED',
  // beyond the reference (only with the fields that ask for them)
  'AT_TARGET',
  'ABOVE_CAP',
  'MAX_CONCURRENT_UPGRADES',
  'AWAITING_APPROVAL',
  'NOT_BEFORE',
  'AWAITING_CANARY',
  'CANARY_FAILED',
  // a target more than one minor away that the stored update graph gives no route to (route-following.ts)
  'NO_ROUTE',
  // what the cluster itself reports about a candidate (provider facts; only when the scheduler passes them)
  'VERSION_GATE',
  'OPERATOR_INCOMPATIBLE',
  'REMOVED_API_IN_USE',
] as const;
export type DecisionReason = (typeof DECISION_REASONS)[number];

export type DecisionAction = 'upgrade' | 'skip' | 'cancel';

export type Decision = {
  cluster: string;
  action: DecisionAction;
  version?: string;
  nextRun?: string;
  reason?: DecisionReason;
  message: string;
  /** the channel to switch to before the upgrade: a route's hop into another minor's channel (route-following.ts; beyond the reference) */
  channel?: string;
  /**
   * an EUS-to-EUS run the policy takes as one control-plane-only attempt (lifecycle.eusControlPlaneOnly):
   * the whole route, the cluster's version first (beyond the reference; only with a stored graph)
   */
  eusRoute?: string[];
};

export type PlanResult = {
  now: string;
  decisions: Decision[];
  versionData: VersionData;
};

export type RuleCheck = {
  rule:
    | 'blocked'
    | 'bound'
    | 'sector'
    | 'soak'
    | 'approval'
    | 'canary'
    | 'hold'
    | 'schedule'
    | 'notBefore'
    | 'mutex'
    | 'pending'
    | 'suspend'
    | 'available'
    /** a target more than one minor away: the path solver's route and its next hop (route-following.ts) */
    | 'route';
  pass: boolean;
  message: string;
  /** Numbers behind the verdict, for display (e.g. soaked, required). */
  details?: Record<string, string | number | boolean | null>;
};

export type CandidateExplanation = {
  version: string;
  /** Chosen by the engine for this run. */
  chosen: boolean;
  checks: RuleCheck[];
};

export type ClusterExplanation = {
  cluster: string;
  managed: boolean;
  /** The engine's decision for this cluster (absent for unmanaged or unknown clusters). */
  decision?: Decision;
  /** Position in the evaluation order (0-based), when managed. */
  order?: number;
  /** Cluster-level rules: pending upgrade, suspend, schedule window, mutexes. */
  checks: RuleCheck[];
  /** Every available upgrade newer than the current version, highest first. */
  candidates: CandidateExplanation[];
  /** Candidates ignored because they are not newer than the cluster's version. */
  ignoredVersions: string[];
};

export type Warning = { path: string; message: string; code: string };

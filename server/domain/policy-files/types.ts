/**
 * The upgrade service's own policy files, as written: an OCM organization file
 * (`/openshift/openshift-cluster-manager-1.yml`) and cluster files (`/openshift/cluster-1.yml`).
 * Values keep the form they were written in (a schedule string stays a string), so rendering
 * a parsed file gives the same data back; keys we do not model go to `extra` (absent when
 * empty) and are written back on render.
 */

export const ORGANIZATION_FILE_SCHEMA = '/openshift/openshift-cluster-manager-1.yml';
export const CLUSTER_FILE_SCHEMA = '/openshift/cluster-1.yml';

export type Extra = Record<string, unknown>;

export type ScheduleObjectSpec = {
  cron: string;
  location?: string;
  /** `@odd`, `@even` or a comma-separated list of ISO week numbers (numbers allowed) */
  isoWeek?: string | number;
  suspend?: boolean;
  extra?: Extra;
};

export type ScheduleSpec = string | ScheduleObjectSpec;

export type ConditionsSpec = {
  soakDays?: number;
  mutexes?: string[];
  sector?: string;
  blockedVersions?: string[];
  /** where this cluster stops: a release (4.16.3) or a minor (4.16.*) — beyond the reference schema */
  targetVersion?: string;
  maxVersion?: string;
  extra?: Extra;
};

export type UpgradePolicySpec = {
  workloads: string[];
  schedule: ScheduleSpec;
  conditions?: ConditionsSpec;
  /** fleetplan's upgrade-lifecycle options as written (server/domain/lifecycle/options.ts) */
  lifecycle?: Record<string, unknown>;
  /** e.g. versionGateApprovals */
  extra?: Extra;
};

export type SectorSpec = {
  name: string;
  /** "N" or "P%" (numbers as written) */
  maxParallelUpgrades?: string | number;
  /** beyond the reference schema: "N" or "P%" of the sector's clusters upgrading at once */
  maxConcurrentUpgrades?: string | number;
  /** beyond the reference schema: a release (4.16.3) or a minor (4.16.*) */
  targetVersion?: string;
  maxVersion?: string;
  /** beyond the reference schema: approval gates {before, after} as written (sector-gates.ts) */
  approval?: Record<string, unknown>;
  /** beyond the reference schema: no upgrade starts before (a local time and zone, or an instant) */
  notBefore?: string;
  /** beyond the reference schema: canaries {count | percent, soakHours} as written (canaries.ts) */
  canary?: Record<string, unknown>;
  /** beyond the reference schema: a label selector adding managed clusters whose policy names no sector */
  selector?: string;
  /** names of the sectors this one follows */
  dependencies: string[];
  extra?: Extra;
};

/** Organization-wide settings: everything of the organization file but the cluster list. */
export type OrganizationSettingsSpec = {
  name: string;
  blockedVersions: string[];
  /** absent = no allow-list (anything allowed) */
  upgradePolicyAllowedWorkloads?: string[];
  upgradePolicyAllowedMutexes?: string[];
  sectors: SectorSpec[];
  /** beyond the reference schema: where every cluster stops, a release or a minor */
  targetVersion?: string;
  maxVersion?: string;
};

export type ClusterPolicyEntrySpec = {
  name: string;
  upgradePolicy: UpgradePolicySpec;
  extra?: Extra;
};

export type OrganizationFile = OrganizationSettingsSpec & {
  upgradePolicyClusters: ClusterPolicyEntrySpec[];
  /** top-level keys we do not model (ocm, description, accessTokenClientId, ...) */
  extra?: Extra;
};

export type ClusterFile = {
  name: string;
  /** null: the file has no upgradePolicy (the cluster is not managed) */
  upgradePolicy: UpgradePolicySpec | null;
  /** everything else of the cluster file (spec, network, ocm, ...) */
  extra?: Extra;
};

/** A problem (rejects the file) or a notice (something not kept), at a path in the file. */
export type FileProblem = { path: string; message: string; line?: number };

export type FileParseResult<T> = { ok: true; value: T; notices: FileProblem[] } | { ok: false; problems: FileProblem[] };

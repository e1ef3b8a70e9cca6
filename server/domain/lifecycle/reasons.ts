/**
 * Every reason code the upgrade lifecycle records (on a skip, cancel, failure or time-out), with
 * the sentence the README table and the UI tooltips show. One list, so the docs cannot drift.
 */
export const LIFECYCLE_REASONS = {
  PROVIDER_ERROR: 'The provider could not read the cluster; nothing is started on data fleetplan could not see.',
  UNMANAGED: 'The cluster has no upgrade policy any more (un-managed).',
  PAUSED: 'The scheduler is paused: nothing starts.',
  FROZEN: 'The organization is frozen: nothing starts.',
  EXCLUDED: 'A maintenance exclusion (organization, sector or cluster) covers the start.',
  START_LATE: 'The start would be later than the slot plus maxUpgradeStartDelay (e.g. the scheduler was down).',
  VERSION_BLOCKED: 'The target matches a current blockedVersions pattern, or is above a target version or cap set since it was planned.',
  HALTED_BY_FAILURE:
    'An unacknowledged failure of this version in this sector, or a sector it depends on, halts it (onFailure: halt); on the failed cluster itself the version is never retried until acknowledged.',
  AWAITING_APPROVAL:
    'The target into this sector (approval.before), or past a sector it follows (approval.after), is not approved (any more): an approval revoked, or a gate set, since it was planned.',
  NOT_BEFORE: "The start is before the sector's notBefore (set since it was planned).",
  CANARY_FAILED:
    "A canary of the cluster's sector failed this version and the failure is not acknowledged: the whole sector is halted for it (since it was planned).",
  AWAITING_CANARY: "The sector's canaries have not completed and soaked this version (canaries set since it was planned).",
  VERSION_CHANGED: 'The cluster no longer runs the version the upgrade was planned from.',
  UPGRADE_IN_PROGRESS: 'The provider reports another upgrade on the cluster.',
  CONDITIONAL_NOT_ALLOWED: 'The target is only a conditional update and the policy does not allow conditional updates.',
  NOT_OFFERED: 'The target is no longer offered to the cluster (not in its available updates).',
  NOT_UPGRADEABLE: 'A minor upgrade while the cluster reports Upgradeable=False.',
  VERSION_GATE:
    "The target's minor needs a provider version gate (OCM) the cluster has not agreed to; an operator acknowledges it on the cluster page.",
  OPERATOR_INCOMPATIBLE:
    "An installed operator's olm.maxOpenShiftVersion is older than the target's minor (the message names the operator); update or remove it first.",
  REMOVED_API_IN_USE:
    'The target removes an API (APIRequestCount removedInRelease) that something called in the last 24 hours; the message names the API and its callers.',
  UNHEALTHY: 'Degraded or unavailable ClusterOperators, firing critical alerts or other health errors (after the configured exclusions).',
  HOOK_REFUSED: 'The pre-upgrade hook answered anything but a 2xx with {"allow": true}.',
  HOOK_TIMEOUT: 'The pre-upgrade hook gave no verdict before the latest start.',
  START_FAILED: 'The provider refused the start and the start window closed before a retry succeeded.',
  DECISION_CHANGED: 'The decision engine no longer upgrades the cluster in this slot (a cancel or skip before the start).',
  REMOVED_AT_PROVIDER: 'Someone removed the upgrade at the provider before it ran.',
  PROVIDER_FAILED: 'The provider reports the upgrade failed (its reason is the message).',
  POST_HOOK_FAILED: 'The post-upgrade hook answered anything but a 2xx with {"healthy": true}.',
  POST_CHECK_FAILED: 'The cluster is unhealthy after the upgrade (same health checks as before it).',
  OPERATOR_APPROVAL_TIMEOUT:
    'After the platform upgrade, the InstallPlans approved under lifecycle.operatorApprovals were not Complete (or could not be read) within its timeout.',
  OPERATOR_INSTALL_FAILED: 'An InstallPlan approved under lifecycle.operatorApprovals failed (OLM phase Failed; its message says why).',
  WORKER_POOL_DEGRADED:
    'During the EUS-to-EUS worker rollout a MachineConfigPool reported Degraded (or degraded machines); the message names the pool.',
  WORKER_ROLLOUT_TIMEOUT:
    'The worker MachineConfigPools were not all Updated within eusControlPlaneOnly.workerRolloutTimeout after their unpause.',
  UPGRADE_TIMEOUT: 'Not completed by its start plus upgradeTimeout; the provider state is kept, nothing is rolled back.',
} as const;

export type LifecycleReason = keyof typeof LIFECYCLE_REASONS;
export const LIFECYCLE_REASON_CODES = Object.keys(LIFECYCLE_REASONS) as LifecycleReason[];

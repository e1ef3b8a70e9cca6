/**
 * Per-policy options of the upgrade lifecycle: the `lifecycle` key of a cluster's upgrade policy
 * (next to `workloads`, `schedule` and `conditions`). Every field is optional; absent fields take
 * the defaults below. Durations are Go-style (`1h`, `90m`, `1h30m`, `45s`) or whole seconds.
 *
 * ```yaml
 * lifecycle:
 *   maxUpgradeStartDelay: 1h     # latest start after the slot
 *   upgradeTimeout: 8h           # started but not completed by then → timed-out (a failure)
 *   preCheckLead: 1h             # the pre-health notice runs this long before the slot
 *   onFailure: halt              # halt | continue
 *   allowConditionalUpdates: false
 *   healthChecks:                # as the upgrade controller's preUpgradeHealthChecks
 *     checkCriticalAlerts: true
 *     checkDegradedOperators: true
 *     excludeAlerts: [{ alertname: KubePodCrashLooping }]
 *     excludeNamespaces: [openshift-console]
 *     excludeOperators: [openshift-monitoring]
 *   operatorApprovals:           # after the platform upgrade: approve pending manual InstallPlans (seed 003)
 *     include: ['*']             # Subscription names or packages (or namespace/name, or {name, namespace}); '*' = all
 *     exclude: [local-storage-operator]
 *     timeout: 1h                # approved plans not Complete by then → failed (OPERATOR_APPROVAL_TIMEOUT)
 *   eusControlPlaneOnly: true    # EUS-to-EUS runs (4.14 → 4.16): workers paused, both control-plane hops, one worker rollout
 *                                # (or { workerRolloutTimeout: 12h }); Kubernetes and the simulator only
 * ```
 */

export const LIFECYCLE_KEYS = [
  'maxUpgradeStartDelay',
  'upgradeTimeout',
  'preCheckLead',
  'onFailure',
  'allowConditionalUpdates',
  'healthChecks',
  'operatorApprovals',
  'eusControlPlaneOnly',
] as const;
export const HEALTH_CHECK_KEYS = [
  'checkCriticalAlerts',
  'checkDegradedOperators',
  'excludeAlerts',
  'excludeNamespaces',
  'excludeOperators',
] as const;

export const OPERATOR_APPROVAL_KEYS = ['include', 'exclude', 'timeout'] as const;
export const EUS_PROCEDURE_KEYS = ['workerRolloutTimeout'] as const;

/**
 * The EUS-to-EUS control-plane-only procedure (eus-procedure.ts): a run from an even EUS minor to
 * the next one (4.14 → 4.15 → 4.16 on an eus channel) pauses the worker MachineConfigPools, takes
 * both control-plane hops in one attempt, unpauses and watches the workers roll once.
 */
export interface EusProcedureConfig {
  /** from the unpause: pools not all Updated by then → failed (WORKER_ROLLOUT_TIMEOUT) */
  workerRolloutTimeoutMs: number;
}

export type OnFailure = 'halt' | 'continue';

/**
 * Which operators' pending manual InstallPlans the lifecycle approves once the platform upgrade
 * completed (seed 003's `ocpOperators` with `operatorsUpgradeTimeout`). A name matches a
 * Subscription by its name or its package (`spec.name`); `namespace/name` matches in that
 * namespace only; `*` matches every operator. Exclude wins over include.
 */
export interface OperatorApprovalsConfig {
  include: string[];
  exclude: string[];
  /** from the phase's start: approved plans not Complete by then fail the attempt */
  timeoutMs: number;
}

export interface HealthCheckConfig {
  checkCriticalAlerts: boolean;
  checkDegradedOperators: boolean;
  /** alert names that never count */
  excludeAlerts: string[];
  /** alerts in these namespaces never count */
  excludeNamespaces: string[];
  /** ClusterOperators that never count */
  excludeOperators: string[];
}

export interface LifecycleOptions {
  maxUpgradeStartDelayMs: number;
  upgradeTimeoutMs: number;
  preCheckLeadMs: number;
  onFailure: OnFailure;
  allowConditionalUpdates: boolean;
  healthChecks: HealthCheckConfig;
  /** null: no approval phase (the policy has no `operatorApprovals`) */
  operatorApprovals: OperatorApprovalsConfig | null;
  /** null: every hop of a route is an attempt of its own (the policy has no `eusControlPlaneOnly`) */
  eusControlPlaneOnly: EusProcedureConfig | null;
}

const HOUR = 3_600_000;

export const DEFAULT_HEALTH_CHECKS: HealthCheckConfig = {
  checkCriticalAlerts: true,
  checkDegradedOperators: true,
  excludeAlerts: [],
  excludeNamespaces: [],
  excludeOperators: [],
};

export const DEFAULT_LIFECYCLE_OPTIONS: LifecycleOptions = {
  maxUpgradeStartDelayMs: HOUR,
  upgradeTimeoutMs: 8 * HOUR,
  preCheckLeadMs: HOUR,
  onFailure: 'halt',
  allowConditionalUpdates: false,
  healthChecks: DEFAULT_HEALTH_CHECKS,
  operatorApprovals: null,
  eusControlPlaneOnly: null,
};

export const DEFAULT_OPERATOR_APPROVAL_TIMEOUT_MS = HOUR;
/** a worker pool of a few hundred nodes, one at a time (maxUnavailable 1), takes hours */
export const DEFAULT_WORKER_ROLLOUT_TIMEOUT_MS = 12 * HOUR;

/** Longest duration accepted (30 days): a typo like `8000h` is refused rather than obeyed. */
export const MAX_LIFECYCLE_DURATION_MS = 30 * 24 * HOUR;

/** `1h30m`, `90m`, `45s`, `2h` or a whole number of seconds → milliseconds; null when not one. */
export function parseDuration(value: unknown): number | null {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 ? value * 1000 : null;
  if (typeof value !== 'string') return null;
  const m = /^(?:(\d{1,6})h)?(?:(\d{1,6})m)?(?:(\d{1,7})s)?$/.exec(value.trim());
  if (!m || (m[1] === undefined && m[2] === undefined && m[3] === undefined)) return null;
  return (Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0)) * 1000;
}

/** `3600000` → `1h`, `5400000` → `1h30m` (for messages and the UI). */
export function formatDuration(ms: number): string {
  const total = Math.round(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const out = `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s ? `${s}s` : ''}`;
  return out === '' ? '0s' : out;
}

export interface OptionProblem {
  path: string;
  message: string;
}

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const show = (v: unknown) => (typeof v === 'string' ? `'${v}'` : v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v);

function nameList(raw: unknown, path: string, problems: OptionProblem[], objectKey?: string): string[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    problems.push({ path, message: `must be a list, got ${show(raw)}` });
    return [];
  }
  const out: string[] = [];
  raw.forEach((item: unknown, i) => {
    const name = objectKey && isObject(item) ? item[objectKey] : item;
    if (typeof name !== 'string' || name.trim() === '')
      problems.push({
        path: `${path}[${i}]`,
        message: objectKey ? `must be a name or {${objectKey}: NAME}, got ${show(item)}` : `must be a non-empty name, got ${show(item)}`,
      });
    else out.push(name);
  });
  return out;
}

function healthChecksFrom(raw: unknown, path: string, problems: OptionProblem[]): HealthCheckConfig {
  if (raw === undefined || raw === null) return DEFAULT_HEALTH_CHECKS;
  if (!isObject(raw)) {
    problems.push({ path, message: `must be an object, got ${show(raw)}` });
    return DEFAULT_HEALTH_CHECKS;
  }
  for (const key of Object.keys(raw))
    if (!(HEALTH_CHECK_KEYS as readonly string[]).includes(key))
      problems.push({ path: `${path}.${key}`, message: `unknown key (known: ${HEALTH_CHECK_KEYS.join(', ')})` });
  const flag = (key: 'checkCriticalAlerts' | 'checkDegradedOperators'): boolean => {
    const v = raw[key];
    if (v === undefined || v === null) return true;
    if (typeof v !== 'boolean') problems.push({ path: `${path}.${key}`, message: `must be true or false, got ${show(v)}` });
    return v !== false;
  };
  return {
    checkCriticalAlerts: flag('checkCriticalAlerts'),
    checkDegradedOperators: flag('checkDegradedOperators'),
    excludeAlerts: nameList(raw.excludeAlerts, `${path}.excludeAlerts`, problems, 'alertname'),
    excludeNamespaces: nameList(raw.excludeNamespaces, `${path}.excludeNamespaces`, problems),
    excludeOperators: nameList(raw.excludeOperators, `${path}.excludeOperators`, problems),
  };
}

/** An operator name of include/exclude: `name`, `namespace/name` or seed 003's `{name, namespace}`. */
function operatorNames(raw: unknown, path: string, problems: OptionProblem[], allowStar: boolean): string[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    problems.push({ path, message: `must be a list of operator names, got ${show(raw)}` });
    return [];
  }
  const out: string[] = [];
  raw.forEach((item: unknown, i) => {
    const at = `${path}[${i}]`;
    let name: string | null = null;
    if (typeof item === 'string') name = item.trim();
    else if (isObject(item) && typeof item.name === 'string') {
      const extra = Object.keys(item).filter((k) => k !== 'name' && k !== 'namespace');
      if (extra.length > 0) problems.push({ path: `${at}.${extra[0]}`, message: 'unknown key (known: name, namespace)' });
      if (item.namespace !== undefined && (typeof item.namespace !== 'string' || item.namespace.trim() === ''))
        problems.push({ path: `${at}.namespace`, message: `must be a namespace name, got ${show(item.namespace)}` });
      else name = typeof item.namespace === 'string' ? `${item.namespace.trim()}/${item.name.trim()}` : item.name.trim();
    }
    if (name === null) {
      if (!problems.some((p) => p.path.startsWith(at)))
        problems.push({ path: at, message: `must be an operator name, namespace/name or {name, namespace}, got ${show(item)}` });
      return;
    }
    if (name === '*') {
      if (!allowStar) problems.push({ path: at, message: "'*' excludes every operator: remove operatorApprovals instead" });
      else out.push(name);
      return;
    }
    // Kubernetes object names: DNS-1123 subdomains (Subscriptions, packages and namespaces alike)
    if (!/^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(name) || name.length > 253 + 64)
      problems.push({
        path: at,
        message: `'${name}' is not an operator name (lower-case letters, digits, '-' and '.'; optionally namespace/name)`,
      });
    else out.push(name);
  });
  return out;
}

function operatorApprovalsFrom(raw: unknown, path: string, problems: OptionProblem[]): OperatorApprovalsConfig | null {
  if (raw === undefined || raw === null) return null;
  if (!isObject(raw)) {
    problems.push({ path, message: `must be an object {include, exclude, timeout}, got ${show(raw)}` });
    return null;
  }
  for (const key of Object.keys(raw))
    if (!(OPERATOR_APPROVAL_KEYS as readonly string[]).includes(key))
      problems.push({ path: `${path}.${key}`, message: `unknown key (known: ${OPERATOR_APPROVAL_KEYS.join(', ')})` });
  const before = problems.length;
  const include = operatorNames(raw.include, `${path}.include`, problems, true);
  // approving is a write to every selected operator: the policy names them (or says '*'), never by default
  if (
    (raw.include === undefined || raw.include === null || (Array.isArray(raw.include) && raw.include.length === 0)) &&
    problems.length === before
  )
    problems.push({ path: `${path}.include`, message: "list the operators whose InstallPlans are approved, or ['*'] for every operator" });
  const exclude = operatorNames(raw.exclude, `${path}.exclude`, problems, false);
  let timeoutMs = DEFAULT_OPERATOR_APPROVAL_TIMEOUT_MS;
  if (raw.timeout !== undefined && raw.timeout !== null) {
    const ms = parseDuration(raw.timeout);
    if (ms === null)
      problems.push({
        path: `${path}.timeout`,
        message: `must be a duration such as 1h, 90m or 1h30m (or whole seconds), got ${show(raw.timeout)}`,
      });
    else if (ms < 60_000 || ms > MAX_LIFECYCLE_DURATION_MS)
      problems.push({
        path: `${path}.timeout`,
        message: `must be from 1m to ${formatDuration(MAX_LIFECYCLE_DURATION_MS)}, got ${formatDuration(ms)}`,
      });
    else timeoutMs = ms;
  }
  return { include, exclude, timeoutMs };
}

function eusProcedureFrom(raw: unknown, path: string, problems: OptionProblem[]): EusProcedureConfig | null {
  if (raw === undefined || raw === null || raw === false) return null;
  if (raw === true) return { workerRolloutTimeoutMs: DEFAULT_WORKER_ROLLOUT_TIMEOUT_MS };
  if (!isObject(raw)) {
    problems.push({ path, message: `must be true, false or {workerRolloutTimeout}, got ${show(raw)}` });
    return null;
  }
  for (const key of Object.keys(raw))
    if (!(EUS_PROCEDURE_KEYS as readonly string[]).includes(key))
      problems.push({ path: `${path}.${key}`, message: `unknown key (known: ${EUS_PROCEDURE_KEYS.join(', ')})` });
  let workerRolloutTimeoutMs = DEFAULT_WORKER_ROLLOUT_TIMEOUT_MS;
  const v = raw.workerRolloutTimeout;
  if (v !== undefined && v !== null) {
    const ms = parseDuration(v);
    if (ms === null)
      problems.push({
        path: `${path}.workerRolloutTimeout`,
        message: `must be a duration such as 12h, 90m or 1h30m (or whole seconds), got ${show(v)}`,
      });
    else if (ms < 60_000 || ms > MAX_LIFECYCLE_DURATION_MS)
      problems.push({
        path: `${path}.workerRolloutTimeout`,
        message: `must be from 1m to ${formatDuration(MAX_LIFECYCLE_DURATION_MS)}, got ${formatDuration(ms)}`,
      });
    else workerRolloutTimeoutMs = ms;
  }
  return { workerRolloutTimeoutMs };
}

/**
 * Validates the `lifecycle` value of a policy (absent = all defaults). Unknown keys are problems:
 * a misspelt `upgradeTimout` must not silently mean 8 h.
 */
export function parseLifecycleOptions(raw: unknown, path: string): { options: LifecycleOptions; problems: OptionProblem[] } {
  const problems: OptionProblem[] = [];
  if (raw === undefined || raw === null) return { options: DEFAULT_LIFECYCLE_OPTIONS, problems };
  if (!isObject(raw)) return { options: DEFAULT_LIFECYCLE_OPTIONS, problems: [{ path, message: `must be an object, got ${show(raw)}` }] };
  for (const key of Object.keys(raw))
    if (!(LIFECYCLE_KEYS as readonly string[]).includes(key))
      problems.push({ path: `${path}.${key}`, message: `unknown key (known: ${LIFECYCLE_KEYS.join(', ')})` });
  const duration = (key: 'maxUpgradeStartDelay' | 'upgradeTimeout' | 'preCheckLead', fallback: number, min: number): number => {
    const v = raw[key];
    if (v === undefined || v === null) return fallback;
    const ms = parseDuration(v);
    if (ms === null) {
      problems.push({ path: `${path}.${key}`, message: `must be a duration such as 1h, 90m or 1h30m (or whole seconds), got ${show(v)}` });
      return fallback;
    }
    if (ms < min || ms > MAX_LIFECYCLE_DURATION_MS) {
      problems.push({
        path: `${path}.${key}`,
        message: `must be from ${formatDuration(min)} to ${formatDuration(MAX_LIFECYCLE_DURATION_MS)}, got ${formatDuration(ms)}`,
      });
      return fallback;
    }
    return ms;
  };
  let onFailure: OnFailure = DEFAULT_LIFECYCLE_OPTIONS.onFailure;
  if (raw.onFailure !== undefined && raw.onFailure !== null) {
    if (raw.onFailure === 'halt' || raw.onFailure === 'continue') onFailure = raw.onFailure;
    else problems.push({ path: `${path}.onFailure`, message: `must be 'halt' or 'continue', got ${show(raw.onFailure)}` });
  }
  let allowConditionalUpdates = false;
  if (raw.allowConditionalUpdates !== undefined && raw.allowConditionalUpdates !== null) {
    if (typeof raw.allowConditionalUpdates === 'boolean') allowConditionalUpdates = raw.allowConditionalUpdates;
    else
      problems.push({
        path: `${path}.allowConditionalUpdates`,
        message: `must be true or false, got ${show(raw.allowConditionalUpdates)}`,
      });
  }
  const options: LifecycleOptions = {
    maxUpgradeStartDelayMs: duration('maxUpgradeStartDelay', DEFAULT_LIFECYCLE_OPTIONS.maxUpgradeStartDelayMs, 0),
    // an upgrade never completes in under a minute: a smaller timeout is a unit mistake
    upgradeTimeoutMs: duration('upgradeTimeout', DEFAULT_LIFECYCLE_OPTIONS.upgradeTimeoutMs, 60_000),
    preCheckLeadMs: duration('preCheckLead', DEFAULT_LIFECYCLE_OPTIONS.preCheckLeadMs, 0),
    onFailure,
    allowConditionalUpdates,
    healthChecks: healthChecksFrom(raw.healthChecks, `${path}.healthChecks`, problems),
    operatorApprovals: operatorApprovalsFrom(raw.operatorApprovals, `${path}.operatorApprovals`, problems),
    eusControlPlaneOnly: eusProcedureFrom(raw.eusControlPlaneOnly, `${path}.eusControlPlaneOnly`, problems),
  };
  return { options, problems };
}

/**
 * The start-time gates: checked on fresh provider data immediately before fleetplan tells a
 * provider to start an upgrade (and once, as a notice, `preCheckLead` before the slot). The
 * first failing gate, in list order, gives the skip reason. Pure: time and data come in.
 */
import { minorLabel } from '@/server/domain/version/version';
import { healthProblems, type ClusterReading } from './observation';
import { formatDuration, type LifecycleOptions } from './options';
import type { LifecycleReason } from './reasons';
import { upgradeInhibitors, type InhibitorReason } from './inhibitors';

/** What the rest of fleetplan says about the cluster at the check (not the provider's data). */
export interface FleetConditions {
  /** the cluster still has an upgrade policy (and the provider still lists it) */
  managed: boolean;
  /** the provider no longer lists the cluster (so it is not managed either) */
  gone?: boolean;
  /** the scheduler is paused */
  paused: boolean;
  /** the organization is frozen (with its reason, if any) */
  frozen: { reason: string | null } | null;
  /** the maintenance exclusion covering the start, as a sentence */
  exclusion: string | null;
  /** the blockedVersions pattern the target matches */
  blockedBy: string | null;
  /** why an unacknowledged failure halts this version here */
  haltedBy: string | null;
  /**
   * the sector's approval gate or notBefore (plan/sector-gates.ts sectorStartHold), or its canaries
   * (plan/canaries.ts canaryStartHold), holding the start; absent = none
   */
  sectorGate?: { reason: 'AWAITING_APPROVAL' | 'NOT_BEFORE' | 'AWAITING_CANARY' | 'CANARY_FAILED'; message: string } | null;
}

export const NO_FLEET_OBSTACLES: FleetConditions = {
  managed: true,
  paused: false,
  frozen: null,
  exclusion: null,
  blockedBy: null,
  haltedBy: null,
};

export interface UpgradeTarget {
  fromVersion: string;
  toVersion: string;
  /** the slot's start (ms) */
  slot: number;
  /** the channel the start switches to first (a route's hop, plan/route-following.ts); absent or null: none */
  channel?: string | null;
}

/** A version gate the cluster has not agreed to (the provider's fact; the rule is below). */
export interface PendingGate {
  id: string;
  /** `4.16`: it holds upgrades to this minor */
  minor: string;
  description: string;
}

/**
 * The rule of version gates, in one place: an upgrade to `toVersion` is held while the cluster
 * has not agreed to a gate of its minor (OCM refuses such an upgrade until then). The first such
 * gate, with the sentence the decision and the start gate show.
 */
export function versionGateFor(pending: readonly PendingGate[], toVersion: string): { id: string; minor: string; message: string } | null {
  const minor = minorLabel(toVersion);
  const gate = minor === null ? undefined : pending.find((g) => g.minor === minor);
  if (!gate) return null;
  return {
    id: gate.id,
    minor: gate.minor,
    message: `${toVersion} needs the version gate for ${gate.minor}, not acknowledged for this cluster: ${gate.description}`,
  };
}

export interface StartGate {
  reason: LifecycleReason;
  pass: boolean;
  message: string;
}

/** `4.14.2` from `4.13.9` is a minor upgrade; z-stream updates are not. */
export function isMinorUpgrade(from: string, to: string): boolean {
  const a = minorLabel(from);
  const b = minorLabel(to);
  return a !== null && b !== null && a !== b;
}

/**
 * Every start gate for `target` at `now`, in order. A provider read that failed yields only the
 * fleet gates and PROVIDER_ERROR (nothing is judged on data fleetplan could not see).
 */
/** why nothing starts while the organization is frozen */
export function frozenMessage(reason: string | null): string {
  return `organization frozen${reason ? `: ${reason}` : ''}`;
}

export function startGates(
  target: UpgradeTarget,
  now: number,
  options: LifecycleOptions,
  reading: ClusterReading,
  fleet: FleetConditions,
): StartGate[] {
  const to = target.toVersion;
  const latest = target.slot + options.maxUpgradeStartDelayMs;
  const gates: StartGate[] = [
    { reason: 'UNMANAGED', pass: fleet.managed, message: fleet.managed ? 'managed' : unmanagedMessage(fleet) },
    { reason: 'PAUSED', pass: !fleet.paused, message: fleet.paused ? 'the scheduler is paused' : 'scheduler running' },
    {
      reason: 'FROZEN',
      pass: !fleet.frozen,
      message: fleet.frozen ? frozenMessage(fleet.frozen.reason) : 'not frozen',
    },
    { reason: 'EXCLUDED', pass: fleet.exclusion === null, message: fleet.exclusion ?? 'no maintenance exclusion' },
    {
      reason: 'START_LATE',
      pass: now <= latest,
      message:
        now <= latest
          ? `within maxUpgradeStartDelay (${formatDuration(options.maxUpgradeStartDelayMs)})`
          : `start ${formatDuration(now - target.slot)} after the slot ${new Date(target.slot).toISOString()} is later than maxUpgradeStartDelay (${formatDuration(options.maxUpgradeStartDelayMs)})`,
    },
    {
      reason: 'VERSION_BLOCKED',
      pass: fleet.blockedBy === null,
      message: fleet.blockedBy ? `${to} is blocked (${fleet.blockedBy})` : 'not blocked',
    },
    { reason: 'HALTED_BY_FAILURE', pass: fleet.haltedBy === null, message: fleet.haltedBy ?? 'no failure halts it' },
    // only where a sector has gates: an approval revoked, or a notBefore set, since it was planned
    ...(fleet.sectorGate ? [{ reason: fleet.sectorGate.reason, pass: false, message: fleet.sectorGate.message }] : []),
  ];
  if (!reading.ok) {
    gates.push({ reason: 'PROVIDER_ERROR', pass: false, message: `provider could not read the cluster: ${reading.message}` });
    return gates;
  }
  const c = reading.cluster;
  const other = c.currentUpgrade && c.currentUpgrade.version !== to ? c.currentUpgrade : null;
  // a route's hop into another channel is not offered before the switch: the stored update graph's
  // edge stands for the offer until then (the start is re-judged on the new channel's offers)
  const beforeSwitch = !!target.channel && c.channel !== target.channel;
  const offered = c.availableUpgrades.includes(to) || beforeSwitch;
  const conditional = !offered && c.conditionalUpgrades.includes(to);
  const minor = isMinorUpgrade(target.fromVersion, to);
  const health = healthProblems(c.health, options.healthChecks);
  const versionGate = versionGateFor(c.pendingVersionGates ?? [], to);
  const inhibitors = upgradeInhibitors(c.inhibitors, c.version, to);
  const inhibitor = (reason: InhibitorReason, passed: string): StartGate => {
    const found = inhibitors.find((i) => i.reason === reason);
    return { reason, pass: found === undefined, message: found?.message ?? passed };
  };
  gates.push(
    { reason: 'PROVIDER_ERROR', pass: true, message: 'provider read the cluster' },
    {
      reason: 'VERSION_CHANGED',
      pass: c.version === target.fromVersion,
      message: c.version === target.fromVersion ? `runs ${c.version}` : `runs ${c.version}, planned from ${target.fromVersion}`,
    },
    {
      reason: 'UPGRADE_IN_PROGRESS',
      pass: other === null,
      message: other ? `the provider reports an upgrade to ${other.version} (${other.state})` : 'no other upgrade',
    },
    {
      reason: 'CONDITIONAL_NOT_ALLOWED',
      pass: !conditional || options.allowConditionalUpdates,
      message: conditional
        ? options.allowConditionalUpdates
          ? `${to} is a conditional update (allowed by the policy)`
          : `${to} is only a conditional update and the policy does not allow conditional updates`
        : 'not conditional',
    },
    {
      reason: 'NOT_OFFERED',
      pass: offered || conditional,
      message: beforeSwitch
        ? `${to} is offered on channel ${target.channel} (the update graph's route), the start switches to it first`
        : offered || conditional
          ? `${to} is offered`
          : `${to} is no longer offered to the cluster`,
    },
    {
      reason: 'NOT_UPGRADEABLE',
      pass: !(minor && c.upgradeable?.status === 'False'),
      message:
        minor && c.upgradeable?.status === 'False'
          ? `minor upgrade while Upgradeable=False${c.upgradeable.message ? `: ${c.upgradeable.message}` : ''}`
          : minor
            ? `Upgradeable=${c.upgradeable?.status ?? 'not reported'}`
            : 'z-stream update (Upgradeable not required)',
    },
    {
      reason: 'VERSION_GATE',
      pass: versionGate === null,
      message: versionGate ? versionGate.message : 'no version gate pending',
    },
    inhibitor('OPERATOR_INCOMPATIBLE', 'no installed operator limits the target'),
    inhibitor('REMOVED_API_IN_USE', 'no API the target removes is in use'),
    { reason: 'UNHEALTHY', pass: health.length === 0, message: health.length === 0 ? 'healthy' : health.join('; ') },
  );
  return gates;
}

/** The first failing gate, or null when the upgrade may start. */
export function firstFailingGate(gates: readonly StartGate[]): StartGate | null {
  return gates.find((g) => !g.pass) ?? null;
}

/** Why a cluster is not managed any more: its policy was removed, or the provider no longer lists it. */
export function unmanagedMessage(fleet: Pick<FleetConditions, 'gone'>): string {
  return fleet.gone ? 'the provider no longer lists the cluster' : 'the cluster is no longer managed';
}

/**
 * What the lifecycle reads of a cluster at the provider: a structural subset of the providers'
 * ClusterSnapshot (server/integrations/providers/types.ts), so the domain does not depend on them.
 */
import type { ClusterInhibitorFacts } from './inhibitors';
import type { HealthCheckConfig } from './options';

export interface OperatorReading {
  name: string;
  /** condition Degraded=True */
  degraded: boolean;
  /** false when condition Available=False */
  available: boolean;
  /** the Degraded or Available=False condition's message */
  message?: string;
}

export interface AlertReading {
  name: string;
  namespace?: string;
  severity: string;
}

export interface HealthReading {
  operators: OperatorReading[];
  /** firing alerts; null: the provider cannot read them (they are then not a gate) */
  alerts: AlertReading[] | null;
  /** anything else that makes the cluster unhealthy (e.g. OCM `cluster state is installing`) */
  other: string[];
}

/** ClusterVersion's Upgradeable condition (False blocks minor upgrades) */
export type UpgradeableCondition = { status: 'True' | 'False' | 'Unknown'; message?: string };

export interface ObservedCluster {
  version: string;
  /** the update channel the provider reports (absent: it reports none) */
  channel?: string;
  availableUpgrades: string[];
  conditionalUpgrades: string[];
  /** ClusterVersion's Upgradeable condition; null = the provider has none */
  upgradeable: UpgradeableCondition | null;
  health: HealthReading;
  currentUpgrade: { version: string; state: 'scheduled' | 'started'; delayed?: boolean; message?: string } | null;
  lastUpgrade?: { version: string; state: 'completed' | 'failed'; message?: string } | null;
  /** version gates the cluster has not agreed to (absent: the provider has none) */
  pendingVersionGates?: { id: string; minor: string; description: string }[];
  /** installed operators and removed-API use (absent: the provider reads neither) */
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

/** A MachineConfigPool (machineconfiguration.openshift.io/v1) as the EUS-to-EUS procedure reads it. */
export interface MachineConfigPoolReading {
  name: string;
  /** the control-plane pool (`master`): never paused by fleetplan */
  master: boolean;
  /** spec.paused */
  paused: boolean;
  /** status.machineCount, updatedMachineCount, degradedMachineCount */
  machineCount: number;
  updatedMachineCount: number;
  degradedMachineCount: number;
  /** conditions Updated, Updating, Degraded (status True) */
  updated: boolean;
  updating: boolean;
  degraded: boolean;
  /** the Degraded condition's message */
  message?: string;
}

/** A read of one cluster: its data, or why it could not be read. */
export type ClusterReading = { ok: true; cluster: ObservedCluster } | { ok: false; message: string };

/** The health problems that count under `config`, one sentence each; empty = healthy. */
export function healthProblems(health: HealthReading, config: HealthCheckConfig): string[] {
  const problems: string[] = [];
  if (config.checkDegradedOperators) {
    const skip = new Set(config.excludeOperators);
    for (const op of health.operators) {
      if (skip.has(op.name)) continue;
      if (op.degraded) problems.push(`ClusterOperator ${op.name} is Degraded${op.message ? `: ${op.message}` : ''}`);
      else if (!op.available) problems.push(`ClusterOperator ${op.name} is not Available${op.message ? `: ${op.message}` : ''}`);
    }
  }
  if (config.checkCriticalAlerts && health.alerts) {
    const skipNames = new Set(config.excludeAlerts);
    const skipNamespaces = new Set(config.excludeNamespaces);
    for (const alert of health.alerts) {
      if (alert.severity !== 'critical' || skipNames.has(alert.name)) continue;
      if (alert.namespace !== undefined && skipNamespaces.has(alert.namespace)) continue;
      problems.push(`critical alert ${alert.name} firing${alert.namespace ? ` in ${alert.namespace}` : ''}`);
    }
  }
  problems.push(...health.other);
  return problems;
}

/**
 * The reference upgrade service's metrics (`reconcile/aus/metrics.py` of app-sre/qontract-reconcile)
 * under their own names, label names and value semantics, so its dashboards and alerts read
 * fleetplan unchanged. Every family carries the reference's base labels `integration` and
 * `ocm_env` first, then its own, in the reference's order. Pure: the caller passes the data.
 * The README's "Metrics" section maps each label to where fleetplan takes it from.
 *
 * @see ../../../shared/docs/research/upgrade-service.md §1.19
 */
import { remainingSoakOf } from '@/server/domain/evaluation/remaining-soak';
import type { FleetVersionView } from '@/server/domain/evaluation/evaluate-fleet';
import type { PlanInput } from '@/server/domain/plan/types';
import { escapeLabelValue, openLabelSet, type MetricFamily, type Sample } from './exposition';

/** the value of the `integration` label on every AUS family */
export const AUS_INTEGRATION = 'fleetplan';
/** OCM marks a cluster `hypershift.enabled`; no fleetplan provider drives hosted control planes */
const HYPERSHIFT = 'false';
const CLUSTER_HEALTHY = 1;
const CLUSTER_UNHEALTHY = 0;

export interface AusBaseLabels {
  integration: string;
  /** the reference's OCM environment; fleetplan's provider name (simulator, ocm, kubernetes) */
  ocm_env: string;
}

export interface AusClusterFacts {
  externalId: string;
  provider: string;
  upgradeStartedAt: string | null;
}

export interface AusFleet {
  base: AusBaseLabels;
  organization: { id: number; name: string };
  /** how many problems make the stored fleet an invalid plan input (0 when it is valid) */
  validationErrors: number;
  /** null while the stored fleet is invalid: then no cluster-level family has samples */
  evaluated: { input: PlanInput; view: FleetVersionView } | null;
  clusters: ReadonlyMap<string, AusClusterFacts>;
}

/**
 * OCM's `version.channel_group` is the channel without its minor: `stable-4.14` → `stable`
 * (the reference reports the group, not the channel).
 */
export function channelGroupOf(channel: string | undefined): string {
  return (channel ?? '').replace(/-\d+\.\d+$/, '');
}

/**
 * The reference reads `cluster.product.id` from OCM (`osd`, `rosa`, `ocp`, …). fleetplan's OCM
 * provider does not read it (''); a cluster fleetplan reaches through a kubeconfig is a
 * self-managed OpenShift (`ocp`); the simulator has no product ('').
 */
export function productOf(provider: string): string {
  return provider === 'kubernetes' ? 'ocp' : '';
}

export function ausFamilies(fleet: AusFleet): MetricFamily[] {
  const base = fleet.base;
  const orgId = String(fleet.organization.id);
  const remaining: Sample[] = [];
  const info: Sample[] = [];
  const health: Sample[] = [];
  const versionData: Sample[] = [];
  if (fleet.evaluated) {
    const { input, view } = fleet.evaluated;
    for (const [version, entry] of Object.entries(view.versionData.versions))
      for (const [workload, soak] of Object.entries(entry.workloads))
        versionData.push({ labels: { ...base, org_id: orgId, version, workload }, value: soak.soakDays });
    for (const c of input.clusters) {
      const p = c.upgradePolicy;
      // the reference reports the clusters under its control: those with an upgrade policy
      if (!p) continue;
      const facts = fleet.clusters.get(c.name);
      const uuid = facts?.externalId ?? c.name;
      info.push({
        labels: {
          ...base,
          cluster_uuid: uuid,
          org_id: orgId,
          org_name: fleet.organization.name,
          channel: channelGroupOf(c.channel),
          current_version: c.version,
          cluster_name: c.name,
          schedule: p.schedule.cron,
          sector: p.conditions.sector ?? '',
          mutexes: p.conditions.mutexes.join(','),
          soak_days: String(p.conditions.soakDays ?? 0),
          workloads: p.workloads.join(','),
          product: productOf(facts?.provider ?? ''),
          hypershift: HYPERSHIFT,
        },
        value: 1,
      });
      health.push({
        labels: { ...base, cluster_uuid: uuid, health_source: facts?.provider ?? '' },
        value: c.healthy ? CLUSTER_HEALTHY : CLUSTER_UNHEALTHY,
      });
      const verdicts = view.candidateSoak(c.name) ?? [];
      // ~17 samples per cluster on a large fleet: the shared labels are written once per cluster
      const clusterLabels = openLabelSet({ ...base, cluster_uuid: uuid });
      for (const r of remainingSoakOf(c, verdicts, view.nowMs, facts?.upgradeStartedAt ?? undefined))
        remaining.push({ labelText: `${clusterLabels},soaking_version="${escapeLabelValue(r.version)}"}`, value: r.value });
    }
  }
  return [
    {
      name: 'aus_cluster_version_remaining_soak_days',
      help: 'Remaining days a version needs to soak for a cluster (-1 scheduled, -2 started, -3 running over 6 h, -4 blocked)',
      type: 'gauge',
      samples: remaining,
    },
    {
      name: 'aus_cluster_upgrade_policy_info',
      help: 'Info metric for clusters under AUS upgrade control',
      type: 'gauge',
      samples: info,
    },
    {
      name: 'aus_cluster_health_state',
      help: 'The health state of a cluster determined by AUS cluster health checks. 1 is healthy, 0 is unhealthy.',
      type: 'gauge',
      samples: health,
    },
    {
      name: 'aus_organization_version_data',
      help: 'Gauge for the version data for an OCM organization',
      type: 'gauge',
      samples: versionData,
    },
    {
      name: 'aus_organization_validation_errors',
      help: 'Current validation errors within an OCM organization',
      type: 'gauge',
      samples: [{ labels: { ...base, org_id: orgId }, value: fleet.validationErrors }],
    },
  ];
}

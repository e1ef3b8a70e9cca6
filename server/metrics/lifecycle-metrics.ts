/**
 * fleetplan's upgrade-lifecycle families, read from the attempts table (upgrade_lifecycles) at
 * scrape time. Like the seed-001 controller's `upgradejob_state`, each cluster's latest attempt is
 * one series whose `state` label is its state (value 1); the fleet-wide gauge has one series per
 * state, 0 included, so an alert on a state needs no `absent()`. Failures and timeouts are
 * counters derived from the attempt rows, which are never deleted (only with their cluster).
 * Pure: the caller passes the rows.
 */
import { LIFECYCLE_STATES } from '@/server/domain/lifecycle/machine';
import type { FailureCountRow, LatestAttemptRow } from '@/server/repositories/metrics-repository';
import type { MetricFamily, Sample } from './exposition';

export function lifecycleFamilies(latest: readonly LatestAttemptRow[], failures: readonly FailureCountRow[]): MetricFamily[] {
  const perState = new Map<string, number>(LIFECYCLE_STATES.map((s) => [s, 0]));
  const state: Sample[] = [];
  const transition: Sample[] = [];
  for (const a of latest) {
    perState.set(a.state, (perState.get(a.state) ?? 0) + 1);
    const cluster = { cluster: a.cluster, cluster_uuid: a.externalId };
    state.push({
      labels: { ...cluster, from_version: a.fromVersion, to_version: a.toVersion, state: a.state, reason: a.reason ?? '' },
      value: 1,
    });
    transition.push({ labels: cluster, value: a.updatedAt / 1000 });
  }
  return [
    {
      name: 'fleetplan_upgrade_state',
      help: "Each cluster's latest upgrade attempt (value 1); state is its lifecycle state, reason the code of its exit",
      type: 'gauge',
      samples: state,
    },
    {
      name: 'fleetplan_upgrade_state_clusters',
      help: 'Clusters whose latest upgrade attempt is in each lifecycle state',
      type: 'gauge',
      samples: [...perState].map(([s, n]) => ({ labels: { state: s }, value: n })),
    },
    {
      name: 'fleetplan_upgrade_last_transition_timestamp_seconds',
      help: "When each cluster's latest upgrade attempt last changed state",
      type: 'gauge',
      samples: transition,
    },
    {
      name: 'fleetplan_upgrade_failures',
      help: 'Upgrade attempts that ended failed or timed-out, per cluster (outcome: failed, timed-out)',
      type: 'counter',
      samples: failures.map((f) => ({
        name: 'fleetplan_upgrade_failures_total',
        labels: { cluster: f.cluster, cluster_uuid: f.externalId, outcome: f.state },
        value: f.attempts,
      })),
    },
    {
      name: 'fleetplan_upgrade_unacknowledged_failures',
      help: 'Failed or timed-out attempts no operator has acknowledged yet (they halt their version)',
      type: 'gauge',
      samples: failures
        .filter((f) => f.unacknowledged > 0)
        .map((f) => ({ labels: { cluster: f.cluster, cluster_uuid: f.externalId, outcome: f.state }, value: f.unacknowledged })),
    },
  ];
}

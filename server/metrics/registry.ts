/**
 * The Prometheus registry, kept on globalThis (dev reloads would otherwise register every metric
 * twice). Process-local counters are updated by the scheduler loop; fleet gauges are computed
 * from the database at scrape time (server/metrics/collect-fleet-metrics.ts), so they are right
 * after a restart and in whichever process serves /api/metrics.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

function createMetrics() {
  const registry = new Registry();
  return {
    registry,
    tickDuration: new Histogram({
      name: 'fleetplan_scheduler_tick_duration_seconds',
      help: 'Duration of scheduler ticks',
      labelNames: ['status', 'dry_run'] as const,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
      registers: [registry],
    }),
    ticks: new Counter({
      name: 'fleetplan_scheduler_ticks_total',
      help: 'Scheduler ticks by outcome',
      labelNames: ['status'] as const,
      registers: [registry],
    }),
    decisions: new Counter({
      name: 'fleetplan_scheduler_decisions_total',
      help: 'Decisions made by scheduler ticks, by action and reason',
      labelNames: ['action', 'reason'] as const,
      registers: [registry],
    }),
    providerErrors: new Counter({
      name: 'fleetplan_provider_errors_total',
      help: 'Errors talking to the fleet provider',
      labelNames: ['provider', 'operation'] as const,
      registers: [registry],
    }),
    intents: new Counter({
      name: 'fleetplan_scheduler_intents_total',
      help: 'Action intents by kind and outcome',
      labelNames: ['kind', 'outcome'] as const,
      registers: [registry],
    }),
    webhookDeliveries: new Counter({
      name: 'fleetplan_webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    remainingSoak: new Gauge({
      name: 'fleetplan_cluster_version_remaining_soak_days',
      help: 'Remaining soak days per cluster and candidate version (scheduled -1, started -2, long-running -3, blocked -4)',
      labelNames: ['cluster', 'cluster_uuid', 'soaking_version'] as const,
      registers: [registry],
    }),
    policyInfo: new Gauge({
      name: 'fleetplan_cluster_upgrade_policy_info',
      help: 'Upgrade policy of each managed cluster (value 1)',
      labelNames: ['cluster_name', 'channel', 'current_version', 'schedule', 'sector', 'mutexes', 'soak_days', 'workloads'] as const,
      registers: [registry],
    }),
    versionSoak: new Gauge({
      name: 'fleetplan_organization_version_soak_days',
      help: 'Accumulated soak days per version and workload',
      labelNames: ['organization', 'version', 'workload'] as const,
      registers: [registry],
    }),
    clusterHealth: new Gauge({
      name: 'fleetplan_cluster_health_state',
      help: '1 = healthy, 0 = health issues',
      labelNames: ['cluster'] as const,
      registers: [registry],
    }),
    lastTickTimestamp: new Gauge({
      name: 'fleetplan_scheduler_last_tick_timestamp_seconds',
      help: 'Start time of the last finished tick (fleet clock)',
      labelNames: ['status'] as const,
      registers: [registry],
    }),
    frozen: new Gauge({
      name: 'fleetplan_organization_frozen',
      help: '1 while the organization-wide freeze is on',
      labelNames: ['organization'] as const,
      registers: [registry],
    }),
  };
}

export type FleetplanMetrics = ReturnType<typeof createMetrics>;

const globalForMetrics = globalThis as unknown as { __fleetplanMetrics?: FleetplanMetrics };

export function getMetrics(): FleetplanMetrics {
  globalForMetrics.__fleetplanMetrics ??= createMetrics();
  return globalForMetrics.__fleetplanMetrics;
}

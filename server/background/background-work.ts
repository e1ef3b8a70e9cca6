/**
 * What runs beside the requests: the scheduler loop with its deliveries (webhooks and hook calls)
 * and, with FLEETPLAN_UPDATE_SERVICE_URL, the update graphs' refresh. This is a composition root:
 * it hands the scheduler its collaborators from the services (which never import each other).
 *
 * The app runs it in a worker thread with its own database connection (scheduler-worker.ts), so
 * a tick at 10,000 clusters never holds the event loop that answers requests; `next dev`, which
 * has no bundled worker, runs it in the server's own thread.
 */
import type { Db } from '@/db/open-database';
import type { FleetplanEnv } from '@/server/env';
import { startGraphRefreshLoop, type GraphRefreshLoop } from '@/server/scheduler/graph-refresh-loop';
import { createSchedulerLoop, tickIntervalMs, type SchedulerLoop } from '@/server/scheduler/start';
import { createGraphRefreshService } from '@/server/services/graph-refresh-service';
import { hookVerdict, requestHook } from '@/server/services/hooks/hook-service';
import { createOutboundDeliverer } from '@/server/services/outbound-delivery';

export interface BackgroundWork {
  /** the scheduler loop: started when FLEETPLAN_SCHEDULER is on, and always ready for "run now" */
  readonly scheduler: SchedulerLoop;
  /** stops ticking, deliveries and graph refreshes; releases the lease */
  stop(graceMs?: number): Promise<void>;
}

export function startBackgroundWork(opts: { getDb: () => Db; env: FleetplanEnv; holder: string }): BackgroundWork {
  const { env, getDb } = opts;
  const scheduler = createSchedulerLoop({
    holder: opts.holder,
    intervalMs: tickIntervalMs(env),
    deliveryConcurrency: env.deliveryConcurrency,
    deliverNext: createOutboundDeliverer(),
    hooks: { hookVerdict, requestHook },
  });
  let graphs: GraphRefreshLoop | undefined;
  if (env.schedulerEnabled) {
    scheduler.start(getDb);
    console.log(`fleetplan scheduler: provider ${env.provider.name}`);
    const updateService = env.updateService;
    if (updateService) {
      const service = createGraphRefreshService({ db: getDb(), realNow: () => new Date(), settings: updateService });
      graphs = startGraphRefreshLoop({
        intervalMs: updateService.refreshHours * 3_600_000,
        refresh: async () =>
          (await service.refresh('system:update-service'))
            .map((r) => (r.ok ? `${r.detail} (${r.nodes} releases)` : `${r.channel} failed: ${r.detail}`))
            .join('; '),
      });
    }
  }
  return {
    scheduler,
    async stop(graceMs) {
      graphs?.stop();
      await scheduler.stop(graceMs);
    },
  };
}

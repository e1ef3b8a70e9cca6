/**
 * Starts the background work for the server process (instrumentation.ts): in the scheduler's
 * worker thread, built by `npm run build` into dist/worker, so a tick never holds the event loop
 * that answers requests ("run now" is sent there too); under `next dev` (the sources, not the
 * last build) or without that bundle, in this thread. Either way the services get the scheduler through useSchedulerControl, and SIGTERM
 * stops it (finishing the tick in progress, releasing the lease) before the process exits. The
 * production server also computes forecasts in a worker thread of their own (forecast-thread.ts).
 */
import fs from 'node:fs';
import { processHolder } from '@/server/process-holder';
import { getDb } from '@/db/client';
import type { FleetplanEnv } from '@/server/env';
import { registerShutdownHook, useSchedulerControl } from '@/server/scheduler/start';
import { prepareWebhookSecrets } from '@/server/services/webhook-service';
import { startBackgroundWork } from './background-work';
import { forecastWorkerFile, startForecastThread } from './forecast-thread';
import { schedulerWorkerFile, startSchedulerThread } from './scheduler-thread';
import { useForecastOffload } from '@/server/services/forecast-service';
import { useMetricsOffload } from '@/server/metrics/collect-fleet-metrics';

export async function startServerBackground(env: FleetplanEnv): Promise<void> {
  await prepareWebhookSecrets(getDb(), env);
  // the bundle is of the last build: `next dev` runs the sources, so it ticks in its own thread
  if (process.env.NODE_ENV === 'production' && fs.existsSync(/* turbopackIgnore: true */ schedulerWorkerFile())) {
    const thread = startSchedulerThread({ intervalSeconds: env.tickSeconds });
    useSchedulerControl(thread);
    registerShutdownHook(() => thread.stop());
    // forecasts too: seconds of CPU each at 10k clusters, computed (and kept warm) in their own thread
    if (fs.existsSync(/* turbopackIgnore: true */ forecastWorkerFile())) {
      const forecasts = startForecastThread({});
      useForecastOffload(forecasts);
      // and metrics scrapes: a second of CPU each at 10k clusters after any write
      useMetricsOffload(forecasts);
      registerShutdownHook(() => forecasts.stop());
    }
    return;
  }
  console.log('fleetplan scheduler: not the production server (or no dist/worker bundle): the scheduler runs in the server thread');
  const work = startBackgroundWork({ getDb, env, holder: processHolder() });
  useSchedulerControl(work.scheduler);
  registerShutdownHook(() => work.stop());
}

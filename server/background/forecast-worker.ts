/**
 * Entry point of the forecast's worker thread (bundled by scripts/build-worker.mjs into
 * dist/worker/forecast-worker.mjs; started by forecast-thread.ts). A 90-day forecast of 10,000
 * clusters costs seconds of CPU: here it runs on its own connection to the server's database,
 * so the event loop that answers requests never computes one, and the results stay warm in
 * this thread's cache (forecast-service.ts keys them by the data they depend on).
 *
 * It also keeps them warm: right after start (the JIT's first forecast is the slowest) and,
 * for the organizations whose forecast someone looked at lately, again when the fleet's data
 * moved — so the Forecast page is usually answered from a forecast computed before it was asked.
 */
import os from 'node:os';
import { parentPort } from 'node:worker_threads';
import { closeDatabase, connectDatabase } from '@/db/connect';
import type { Db } from '@/db/open-database';
import { getEnv } from '@/server/env';
import { getFleetClock } from '@/server/fleet-clock';
import { renderFleetMetrics } from '@/server/metrics/collect-fleet-metrics';
import { listOrganizations } from '@/server/repositories/organization-repository';
import { AppError } from '@/server/services/app-error';
import {
  createForecastService,
  type ForecastRunInput,
  type ForecastRunOptions,
  type ForecastRunOutput,
} from '@/server/services/forecast-service';
import { createPolicyService } from '@/server/services/policies/policy-service';
import type { PolicyDraft } from '@/server/services/policies/evaluate-draft';
import type { ForecastImpact } from '@/server/services/policies/preview-forecast-impact';
import { fixedOrganizationScope } from '@/server/services/organization-scope';
import type { FromForecastThread, ToForecastThread } from './forecast-thread-protocol';
import { ForecastWarmList, PAGE_DEFAULT_FORECAST } from './forecast-warm-list';

/**
 * This thread's nice value. Linux keeps it per thread, and `os.setPriority` without a pid sets the
 * calling thread's: a forecast then takes only the CPU that the request thread and the scheduler's
 * tick leave (on two cores the three compete), so pages and ticks keep their pace while one runs.
 */
const FORECAST_THREAD_NICE = 10;
/** how often the warm list is walked (a walk whose forecasts are still valid costs two small queries per entry) */
const WARM_EVERY_MS = 15_000;
/** the first walk waits for the server to come up (its start-up and first tick run on the same cores) */
const FIRST_WARM_AFTER_MS = 2_000;

function main(): void {
  const port = parentPort;
  if (!port) throw new Error('forecast-worker runs as a worker thread (forecast-thread.ts starts it)');
  try {
    os.setPriority(FORECAST_THREAD_NICE);
  } catch (err) {
    console.warn(`fleetplan forecast: the thread keeps its priority (${(err as Error).message})`);
  }
  const env = getEnv();
  let db: Db | undefined;
  const getDb = () => (db ??= connectDatabase(env.database));
  const send = (message: FromForecastThread) => port.postMessage(message);
  const warmList = new ForecastWarmList();
  let stopping = false;
  let requestsInFlight = 0;

  const run = (organizationId: number, input: ForecastRunInput, at: Date, options: ForecastRunOptions = {}) =>
    createForecastService(getDb(), () => at, fixedOrganizationScope(getDb(), organizationId)).run(input, options);
  // a request is answered with the last forecast of its configuration while the new one is computed
  // (forecast-service.ts); that computation is work in hand like a request's
  const requestOptions: ForecastRunOptions = {
    serveStale: true,
    onBackgroundWork: (work) => {
      requestsInFlight++;
      void work.finally(() => requestsInFlight--);
    },
  };

  const impact = async (organizationId: number, draft: PolicyDraft, at: Date) =>
    await createPolicyService(
      getDb(),
      () => at,
      () => new Date(),
      fixedOrganizationScope(getDb(), organizationId),
    ).previewForecastImpact(draft);

  const answer = (id: number, work: Promise<ForecastRunOutput | ForecastImpact | string>) => {
    requestsInFlight++;
    work
      .then(
        (output) => send({ kind: 'done', id, output }),
        (err: unknown) =>
          send({
            kind: 'failed',
            id,
            code: err instanceof AppError ? err.code : null,
            message: err instanceof Error ? err.message : String(err),
            problems: err instanceof AppError ? err.problems : [],
          }),
      )
      .finally(() => requestsInFlight--);
  };

  port.on('message', (message: ToForecastThread) => {
    if (message.kind === 'run') {
      warmList.asked(message.organizationId, message.input, Date.now());
      answer(message.id, run(message.organizationId, message.input, new Date(message.atMs), requestOptions));
    } else if (message.kind === 'impact') {
      answer(message.id, impact(message.organizationId, message.draft, new Date(message.atMs)));
    } else if (message.kind === 'metrics') {
      answer(message.id, renderFleetMetrics(getDb(), new Date(message.atMs), message.opts));
    } else if (message.kind === 'stop') {
      stopping = true;
      clearTimeout(warmTimer);
      void (db ? closeDatabase(db) : Promise.resolve())
        .catch(() => undefined)
        .finally(() => {
          send({ kind: 'stopped' });
          port.close();
        });
    }
  });

  // Warming: one entry at a time, never while a request computes (they would share the core).
  let firstWalk = true;
  const walk = async () => {
    try {
      const organizations = (await listOrganizations(getDb())).map((o) => o.id);
      const entries = firstWalk
        ? organizations.map((organizationId) => ({ organizationId, input: PAGE_DEFAULT_FORECAST }))
        : warmList.entries(Date.now(), new Set(organizations));
      firstWalk = false;
      const clock = await getFleetClock(getDb());
      let warmed = 0;
      for (const entry of entries) {
        if (stopping) return;
        while (requestsInFlight > 0 && !stopping) await new Promise((r) => setTimeout(r, 200));
        await run(entry.organizationId, entry.input, clock()).then(
          () => warmed++,
          (err: unknown) => {
            // an organization without policies, a policy that does not validate: the page says so when asked
            if (!(err instanceof AppError)) console.error(`fleetplan forecast: warming failed: ${(err as Error).stack ?? String(err)}`);
          },
        );
      }
      if (!stopping) send({ kind: 'warmed', forecasts: warmed });
    } catch (err) {
      console.error(`fleetplan forecast: warming failed: ${(err as Error).stack ?? String(err)}`);
    } finally {
      if (!stopping) warmTimer = setTimeout(() => void walk(), WARM_EVERY_MS);
    }
  };
  let warmTimer = setTimeout(() => void walk(), FIRST_WARM_AFTER_MS);
}

main();

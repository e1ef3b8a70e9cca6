// Next.js start-up hook (Node.js runtime only): checks the settings, so a bad FLEETPLAN_* value
// stops the server with a message naming it (server/env.ts); encrypts webhook secrets still stored
// in plain text (creating the secret key file on first start); then starts the background
// scheduler unless FLEETPLAN_SCHEDULER=off (interval FLEETPLAN_TICK_SECONDS, provider FLEETPLAN_PROVIDER)
// with its delivery loop (webhooks and hook calls, FLEETPLAN_DELIVERY_CONCURRENCY at a time) and,
// with FLEETPLAN_UPDATE_SERVICE_URL, the update graphs' refresh.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { getEnv } = await import('./server/env');
  const env = getEnv();
  if (process.env.NEXT_PHASE === 'phase-production-build') return;
  const [{ configureProcessScheduler, startScheduler }, { getDb }, { prepareWebhookSecrets }, { createOutboundDeliverer }, hooks] =
    await Promise.all([
      import('./server/scheduler/start'),
      import('./db/client'),
      import('./server/services/webhook-service'),
      import('./server/services/outbound-delivery'),
      import('./server/services/hooks/hook-service'),
    ]);
  prepareWebhookSecrets(getDb(), env);
  // the scheduler gets its collaborators here: it does not import services (nor they it)
  configureProcessScheduler({
    deliverNext: createOutboundDeliverer(),
    hooks: {
      hookVerdict: hooks.hookVerdict,
      requestHook: hooks.requestHook,
    },
  });
  if (!env.schedulerEnabled) return;
  startScheduler(getDb);
  const updateService = env.updateService;
  if (updateService) {
    const [{ startGraphRefreshLoop }, { createGraphRefreshService }] = await Promise.all([
      import('./server/scheduler/graph-refresh-loop'),
      import('./server/services/graph-refresh-service'),
    ]);
    const graphs = createGraphRefreshService({ db: getDb(), realNow: () => new Date(), settings: updateService });
    startGraphRefreshLoop({
      intervalMs: updateService.refreshHours * 3_600_000,
      refresh: async () =>
        (await graphs.refresh('system:update-service'))
          .map((r) => (r.ok ? `${r.detail} (${r.nodes} releases)` : `${r.channel} failed: ${r.detail}`))
          .join('; '),
    });
  }
}

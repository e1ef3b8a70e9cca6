// Next.js start-up hook (Node.js runtime only): checks the settings, so a bad FLEETPLAN_* value
// stops the server with a message naming it (server/env.ts); encrypts webhook secrets still stored
// in plain text (creating the secret key file on first start); then starts the background work
// (server/background) in the scheduler's worker thread: the scheduler loop unless
// FLEETPLAN_SCHEDULER=off (interval FLEETPLAN_TICK_SECONDS, provider FLEETPLAN_PROVIDER) with its
// delivery loop (webhooks and hook calls, FLEETPLAN_DELIVERY_CONCURRENCY at a time) and, with
// FLEETPLAN_UPDATE_SERVICE_URL, the update graphs' refresh.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { getEnv } = await import('./server/env');
  const env = getEnv();
  if (process.env.NEXT_PHASE === 'phase-production-build') return;
  const { startServerBackground } = await import('./server/background/start-in-server');
  await startServerBackground(env);
}

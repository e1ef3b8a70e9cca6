// Next.js start-up hook (Node.js runtime only): checks the settings, so a bad FLEETPLAN_* value
// stops the server with a message naming it (server/env.ts), then starts the background
// scheduler unless FLEETPLAN_SCHEDULER=off (interval FLEETPLAN_TICK_SECONDS, provider FLEETPLAN_PROVIDER).
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { getEnv } = await import('./server/env');
  if (!getEnv().schedulerEnabled) return;
  const [{ startScheduler }, { getDb }] = await Promise.all([import('./server/scheduler/start'), import('./db/client')]);
  startScheduler(getDb);
}

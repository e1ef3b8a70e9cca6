// Next.js start-up hook: starts the background scheduler in the Node.js runtime only.
// Off with FLEETPLAN_SCHEDULER=off; interval FLEETPLAN_TICK_SECONDS; provider FLEETPLAN_PROVIDER.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs' || process.env.FLEETPLAN_SCHEDULER === 'off') return;
  const [{ startScheduler }, { getDb }] = await Promise.all([import('./server/scheduler/start'), import('./db/client')]);
  startScheduler(getDb);
}

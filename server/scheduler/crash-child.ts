// Child process of the crash test (crash.test.ts): runs scheduler ticks back to back on a SQLite
// file with a fake provider whose calls go to an append-only log, until it is killed.
// Usage: tsx server/scheduler/crash-child.ts DB_FILE LOG_FILE [--ticks N]
import { openDatabase } from '@/db/open-database';
import { createFakeProvider } from '@/server/integrations/providers/fake-provider';
import { isDatabaseEmpty } from '@/server/repositories/demo-fleet-repository';
import { countTicks } from '@/server/repositories/scheduler-repository';
import { runTick } from './run-tick';
import { insertTestFleet } from './test-fleet';
import { CRASH_FLEET, CRASH_BASE_TIME, CRASH_STEP_MS, CRASH_DURATION_MS, CRASH_EXCLUDED_OPERATOR } from './crash-fleet';

async function main(): Promise<void> {
  const [dbFile, logFile, ...rest] = process.argv.slice(2);
  if (!dbFile || !logFile) throw new Error('usage: crash-child DB_FILE LOG_FILE [--ticks N]');
  const ticksArg = rest.indexOf('--ticks');
  const maxTicks = ticksArg >= 0 ? Number(rest[ticksArg + 1]) : Infinity;
  const db = openDatabase(dbFile);
  const base = new Date(CRASH_BASE_TIME);
  if (await isDatabaseEmpty(db)) await insertTestFleet(db, CRASH_FLEET, base);
  const fakeClusters = CRASH_FLEET.clusters.map((c) => ({
    externalId: `ext-${c.name}`,
    name: c.name,
    version: c.version,
    channel: c.channel ?? 'stable-4.13',
    releases: c.releases,
    // pending manual InstallPlans: approved (all but the excluded operator's) after the first upgrade
    installPlans: ['openshift-gitops-operator', CRASH_EXCLUDED_OPERATOR].map((operator) => ({
      namespace: 'openshift-operators',
      name: `install-${operator}`,
      approval: 'Manual',
      approved: false,
      phase: 'RequiresApproval',
      csvNames: [`${operator}.v1.0.1`],
      subscriptions: [{ namespace: 'openshift-operators', name: operator, package: operator }],
    })),
  }));
  // a small delay per provider call widens the windows between "sent" and "marked done"
  const provider = createFakeProvider({ clusters: fakeClusters, logFile, durationMs: CRASH_DURATION_MS, installPlans: true, pools: true });
  const slow = {
    ...provider,
    startUpgrade: async (...a: Parameters<typeof provider.startUpgrade>) => {
      await new Promise((r) => setTimeout(r, 3));
      await provider.startUpgrade(...a);
      await new Promise((r) => setTimeout(r, 3));
    },
    approveInstallPlan: async (...a: Parameters<NonNullable<typeof provider.approveInstallPlan>>) => {
      await new Promise((r) => setTimeout(r, 3));
      const outcome = await provider.approveInstallPlan!(...a);
      await new Promise((r) => setTimeout(r, 3));
      return outcome;
    },
  };
  let ran = 0;
  // The test holds our stdin open; when it goes away (a failed or interrupted run), so do we.
  process.stdin.on('end', () => process.exit(0)).resume();
  process.stdout.write('ready\n');
  while (ran < maxTicks) {
    const count = await countTicks(db);
    const now = new Date(base.getTime() + count * CRASH_STEP_MS);
    const result = await runTick({ db, provider: slow, now, holder: 'crash-child', realNow: () => now });
    if (result.status === 'failed') process.stderr.write(`tick failed: ${result.error}\n`);
    ran++;
  }
  db.$client.close();
}

main().then(
  () => process.exit(0), // stdin would keep the process alive
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);

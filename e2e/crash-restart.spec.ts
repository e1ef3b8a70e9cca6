// Crash safety of the real server (issue 11): `npm start` (the production build) with the OCM
// provider against the fake OCM running as its own process, a 1 s tick, and policies whose slots
// come every minute with no soak, so upgrades are planned and OCM is told about them all the time
// (OCM's start lead is longer than the engine's 6 minutes ahead: the upgrade policy is POSTed at
// the tick that plans it). A driver plays OCM: a while after each POST it completes the upgrade
// and publishes the next release, so every cluster keeps being upgraded.
//
// 1. Kills: the server's process group is SIGKILLed over and over, at random times and right
//    when the fake accepts a write (before the server gets the answer, or just after), and
//    restarted each time.
// 2. Two servers on one database (two ports, the scheduler on in both), one of them stopped and
//    started again in the middle.
//
// Then it counts what the fake saw: exactly one POST per upgrade attempt whose start fleetplan
// recorded, never two for the same cluster and version, no POST fleetplan has no intent for, no
// refusal, no DELETE; every start intent settled; each lifecycle transition and its webhook event
// once; and with two servers, each webhook delivered once. In-process, server/scheduler/
// crash.test.ts kills a process that loops runTick with the in-memory fake provider: a fast
// complement (many kills per second, mutex checks), not a substitute for this test.
import { expect, test } from '@playwright/test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  cleanEnv,
  execute,
  freePort,
  query,
  runCli,
  seededRandom,
  sleep,
  startFake,
  startReceiver,
  startServer,
  waitUntil,
  type FakeProcess,
  type ServerProcess,
} from './crash/processes';
import {
  crashClusterNames,
  driveOcm,
  OCM_TOKEN,
  expectOnePostPerRecordedStart,
  writeFleetFile,
  writeOrganizationFile,
  type OcmWrite,
} from './crash/ocm-fleet';

const CLUSTERS = Number(process.env.CRASH_E2E_CLUSTERS ?? 8);
const KILLS = Number(process.env.CRASH_E2E_KILLS ?? 16);
const SEED = Number(process.env.CRASH_E2E_SEED ?? Date.now() % 1_000_000);
interface Attempt {
  id: number;
  cluster_name: string;
  to_version: string;
  state: string;
  start_requested_at: number | null;
  start_confirmed_at: number | null;
}
interface Intent {
  idempotency_key: string;
  kind: string;
  cluster_name: string;
  version: string;
  status: string;
  error: string | null;
}

const names = crashClusterNames(CLUSTERS);

test.describe.configure({ mode: 'serial' });

test('the real server, SIGKILLed and restarted, and two servers on one database: one provider write per upgrade attempt', async () => {
  const testInfo = test.info();
  test.setTimeout(300_000);
  const started = Date.now();
  const random = seededRandom(SEED);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-crash-e2e-'));
  const dbFile = path.join(dir, 'fleet.db');
  const serverLog = path.join(dir, 'server.log');
  const fleetFile = writeFleetFile(dir, names);
  const servers: ServerProcess[] = [];
  let fake: FakeProcess | undefined;
  const receiver = await startReceiver();
  let passed = false;
  let driver: ReturnType<typeof driveOcm> | undefined;
  const mark = (what: string) => notes.push(`${what} at ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const notes: string[] = [`seed ${SEED} (CRASH_E2E_SEED replays it), ${CLUSTERS} clusters, ${KILLS} kills`];
  try {
    fake = await startFake('ocm', fleetFile, path.join(dir, 'fake.log'));
    const ocm = fake;
    const env: NodeJS.ProcessEnv = {
      NODE_ENV: 'production',
      ...cleanEnv(),
      DATABASE_URL: dbFile,
      FLEETPLAN_PROVIDER: 'ocm',
      FLEETPLAN_OCM_URL: ocm.url,
      FLEETPLAN_OCM_TOKEN: OCM_TOKEN,
      FLEETPLAN_TICK_SECONDS: '1',
      FLEETPLAN_SEED_DEMO: '0',
      FLEETPLAN_SCHEDULER: 'on',
      FLEETPLAN_WEBHOOK_ALLOW_PRIVATE: '1',
      FLEETPLAN_ADMIN_PASSWORD: 'crash-test-admin-password',
      NEXT_TELEMETRY_DISABLED: '1',
    };
    const ports = [await freePort(), await freePort()];
    const launch = (port = ports[0]!) => {
      const s = startServer(env, port, serverLog);
      servers.push(s);
      return s;
    };

    // ---- setup: the first start reads the fleet; the organization file gives it policies -----
    let server = launch();
    await server.ready;
    await waitUntil('the first tick to store the clusters', () => query(dbFile, 'select name from clusters').length === CLUSTERS, 30_000);
    const orgFile = writeOrganizationFile(dir, 'crash-org', names);
    const imported = await runCli(['import', orgFile], env);
    expect(imported.out).toContain(`${CLUSTERS} managed`);
    expect(imported.code).toBe(0);
    // a webhook for every event of the organization; its secret in plain text is read as such (start-up encrypts it)
    execute(
      dbFile,
      `insert into webhooks (name, url, secret, events, enabled, created_at, organization_id)
       values ('crash', ?, 'crash-secret', '[]', 1, ?, (select min(id) from organizations))`,
      receiver.url,
      Date.now(),
    );
    driver = driveOcm(ocm, random);

    // ---- 1. SIGKILL the process group at random points, restart -------------------------------
    mark('setup done');
    receiver.setPhase('kills');
    const modes = { random: 0, 'on-write': 0, 'after-write': 0 };
    let writeKills = 0;
    const boots: number[] = [];
    const lives: number[] = [];
    for (let i = 0; i < KILLS; i++) {
      const bootStart = Date.now();
      if (i > 0) server = launch();
      await server.ready;
      const lifeStart = Date.now();
      boots.push(lifeStart - bootStart);
      const r = random();
      if (r < 0.35) {
        modes['on-write']++;
        await ocm.post('/_fake/kill-on-write', { pgid: server.pgid, afterMs: 0 });
      } else if (r < 0.6) {
        modes['after-write']++;
        await ocm.post('/_fake/kill-on-write', { pgid: server.pgid, afterMs: 1 + Math.floor(random() * 40) });
      } else {
        modes.random++;
        await sleep(Math.floor(random() * 4500));
        server.kill('SIGKILL');
      }
      const deadline = sleep(10_000).then(() => 'timeout' as const);
      if ((await Promise.race([server.exited, deadline])) === 'timeout') server.kill('SIGKILL'); // no write came: kill anyway
      const { signal } = await server.exited;
      lives.push(Date.now() - lifeStart);
      expect(signal, `server ${i} ended by itself`).toBe('SIGKILL');
      await ocm.post('/_fake/disarm');
    }
    const avg = (xs: number[]) => (xs.reduce((x, y) => x + y, 0) / Math.max(1, xs.length) / 1000).toFixed(1);
    notes.push(`restarts: ${avg(boots)} s to serve, then ${avg(lives)} s to the kill (averages)`);
    writeKills = (await ocm.get<{ kills: unknown[] }>('/_fake/kills')).kills.length;

    // ---- 2. two servers on one database ------------------------------------------------------
    mark('kills done');
    receiver.setPhase('two-servers');
    const firstDeliveryOfPhase2 = (query<{ n: number | null }>(dbFile, 'select max(id) as n from webhook_deliveries')[0]?.n ?? 0) + 1;
    const a = launch(ports[0]);
    const b = launch(ports[1]);
    await Promise.all([a.ready, b.ready]);
    await sleep(8_000);
    a.kill('SIGTERM'); // a graceful stop hands the lease over
    await a.gone(20_000);
    await sleep(4_000);
    const a2 = launch(ports[0]);
    await a2.ready;
    await sleep(6_000);

    // ---- settle: no new releases; every upgrade under way finishes ----------------------------
    mark('two servers done');
    driver.stopPublishing();
    await waitUntil(
      'every upgrade attempt to end',
      () =>
        query(dbFile, "select id from upgrade_lifecycles where state not in ('completed','skipped','cancelled','failed','timed-out')")
          .length === 0,
      60_000,
      500,
    );
    // A delivery a killed server had claimed waits for its claim to expire (delivery timeout +
    // 60 s), longer than this test: at least once, not lost. Every other one is sent now.
    const unsent = `select id, claimed_until from webhook_deliveries where status = 'pending'
       and (id >= ? or claimed_by is null or claimed_until < ?)`;
    await waitUntil(
      'every webhook delivery to be sent',
      () => query(dbFile, unsent, firstDeliveryOfPhase2, Date.now()).length === 0,
      20_000,
      500,
    );
    const claimedByTheKilled = query<{ id: number }>(dbFile, "select id from webhook_deliveries where status = 'pending'");
    notes.push(`${claimedByTheKilled.length} webhook deliveries wait for the claim of a killed server to expire`);
    for (const s of [b, a2]) s.kill('SIGTERM');
    for (const s of [b, a2]) await s.gone(20_000);
    await driver.stop();
    mark('settled');

    // ---- what the fake saw, against what fleetplan recorded ----------------------------------
    const { writes, refusals } = await ocm.get<{ writes: OcmWrite[]; refusals: { cluster: string; reason: string }[] }>('/_fake/writes');
    const posts = writes.filter((w) => w.method === 'POST');
    const attempts = query<Attempt>(dbFile, 'select * from upgrade_lifecycles');
    const intents = query<Intent>(dbFile, "select * from action_intents where kind = 'start-upgrade'");
    const startedAttempts = attempts.filter((x) => x.start_requested_at !== null);
    notes.push(
      `kills: ${KILLS} (${modes.random} at random times, ${modes['on-write']} when the fake accepted a write, ${modes['after-write']} just after it answered; ${writeKills} fired on a write)`,
      `provider writes: ${posts.length} POSTs, ${writes.length - posts.length} DELETEs, ${refusals.length} refusals; attempts ${attempts.length}, started ${startedAttempts.length}, completed ${attempts.filter((x) => x.state === 'completed').length}`,
    );

    expect(driver.errors).toEqual([]);
    expectOnePostPerRecordedStart(
      { writes, refusals },
      attempts.map((x) => ({
        target: `${x.cluster_name}@${x.to_version}`,
        state: x.state,
        requested: x.start_requested_at !== null,
        confirmed: x.start_confirmed_at !== null,
      })),
      intents.map((x) => ({ target: `${x.cluster_name}@${x.version}`, status: x.status })),
    );

    // each transition once, and its webhook event once
    const transitions = query<{ lifecycle_id: number; to_state: string; n: number }>(
      dbFile,
      'select lifecycle_id, to_state, count(*) as n from upgrade_lifecycle_transitions group by lifecycle_id, to_state having n > 1',
    );
    expect(transitions).toEqual([]);
    const doubleEvents = query<{ event: string; lifecycle: number; state: string | null; n: number }>(
      dbFile,
      `select event, json_extract(payload, '$.lifecycleId') as lifecycle, json_extract(payload, '$.state') as state, count(*) as n
       from webhook_deliveries group by event, lifecycle, state having n > 1`,
    );
    expect(doubleEvents).toEqual([]);
    // two servers: every delivery of that phase reached the receiver once
    const phase2 = query<{ id: number; status: string }>(
      dbFile,
      'select id, status from webhook_deliveries where id >= ?',
      firstDeliveryOfPhase2,
    );
    expect(phase2.filter((d) => d.status !== 'delivered')).toEqual([]);
    const received = receiver.receipts.filter((x) => Number(x.delivery) >= firstDeliveryOfPhase2);
    expect(received.map((x) => Number(x.delivery)).sort((x, y) => x - y)).toEqual(phase2.map((d) => d.id).sort((x, y) => x - y));

    // the test did what it claims: kills on writes happened, and many writes were made across them
    expect(writeKills).toBeGreaterThanOrEqual(3);
    expect(posts.length).toBeGreaterThanOrEqual(3 * CLUSTERS);
    expect(phase2.length).toBeGreaterThan(0);
    const interrupted = query(dbFile, "select id from scheduler_ticks where error like 'interrupted%'");
    expect(interrupted.length).toBeGreaterThan(0);
    passed = true;
  } finally {
    await driver?.stop();
    for (const s of servers) if (s.alive()) s.kill('SIGKILL');
    await Promise.all(servers.map((s) => s.exited));
    await fake?.stop();
    await receiver.close();
    notes.push(`runtime ${Math.round((Date.now() - started) / 1000)} s`);
    if (driver?.errors.length) notes.push(`driver errors: ${driver.errors.slice(0, 10).join(' | ')}`);
    await testInfo.attach('crash-summary', { body: notes.join('\n'), contentType: 'text/plain' });
    console.log(`crash e2e: ${notes.join('; ')}`);
    if (passed) fs.rmSync(dir, { recursive: true, force: true });
    else console.log(`crash e2e: logs kept in ${dir}`);
  }
});

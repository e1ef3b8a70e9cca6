// Several replicas on one PostgreSQL (issue 15): two `npm start` servers (the production build) on
// two ports share a throw-away PostgreSQL (tests/support/throwaway-postgres.ts), the scheduler on
// in both with a 1 s tick, against the fake OCM as its own process with crash-restart's fleet
// (e2e/crash/ocm-fleet.ts: upgrades planned and POSTed all the time, a driver completing them).
// Exactly one replica acts: the one holding the scheduler lease in the database.
//
// Over and over, the leader (the lease's holder `host:pid`, mapped to its process group) is
// SIGKILLed, at a random moment or right when the fake accepts one of its writes (before it gets
// the answer, or just after), and restarted; meanwhile both replicas' /api/healthz and a signed-in
// tRPC query (fleet.status) are polled.
//
// Then: exactly one POST per start intent fleetplan recorded, never two for the same cluster and
// version, none without an intent; every start intent settled; every tick that finished has the
// decisions its summary counts; after each kill the other replica started a tick within two tick
// intervals; and the surviving replica answered every poll.
import { expect, test } from '@playwright/test';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../tests/support/throwaway-postgres';
import {
  crashClusterNames,
  driveOcm,
  OCM_TOKEN,
  expectOnePostPerRecordedStart,
  writeFleetFile,
  writeOrganizationFile,
  type OcmWrite,
} from './crash/ocm-fleet';
import {
  cleanEnv,
  freePort,
  lookAtPostgres,
  processGroupOf,
  runCli,
  seededRandom,
  sleep,
  startFake,
  startReceiver,
  startServer,
  waitUntil,
  type FakeProcess,
  type PostgresLook,
  type ServerProcess,
} from './crash/processes';

const CLUSTERS = Number(process.env.REPLICAS_E2E_CLUSTERS ?? 6);
const KILLS = Number(process.env.REPLICAS_E2E_KILLS ?? 8);
const SEED = Number(process.env.REPLICAS_E2E_SEED ?? Date.now() % 1_000_000);
const TICK_MS = 1000;
const POLL_EVERY_MS = 300;
const ADMIN_PASSWORD = 'replicas-test-admin-password';

const names = crashClusterNames(CLUSTERS, 'replica');

/** One replica's port, and the server now running on it (a new one after each restart). */
interface Replica {
  port: number;
  server: ServerProcess;
  /** it has served since it started: polls to it must be answered */
  serving: boolean;
  /** picked to be killed: its failed polls from then on are expected */
  doomed: boolean;
}
interface Takeover {
  kill: number;
  mode: 'random' | 'on-write' | 'after-write';
  /** from the kill to the first tick another holder started; null: none started */
  ms: number | null;
  /** how long the killed holder's lease still ran at the kill (random kills: read just before) */
  leaseLeftMs: number | null;
  /** that holder was the surviving replica */
  bySurvivor: boolean;
}
interface PollFailure {
  replica: number;
  what: string;
  at: number;
  error: string;
}

test.describe.configure({ mode: 'serial' });

test('two replicas on one PostgreSQL, the leader SIGKILLed and restarted: one acts, the other takes over, one provider write per upgrade attempt', async () => {
  const testInfo = test.info();
  test.setTimeout(280_000);
  const started = Date.now();
  const random = seededRandom(SEED);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-replicas-e2e-'));
  const serverLogs = [path.join(dir, 'server-a.log'), path.join(dir, 'server-b.log')];
  const fleetFile = writeFleetFile(dir, names);
  const servers: ServerProcess[] = [];
  const notes: string[] = [`seed ${SEED} (REPLICAS_E2E_SEED replays it), ${CLUSTERS} clusters, ${KILLS} kills`];
  const mark = (what: string) => notes.push(`${what} at ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const receiver = await startReceiver();
  let postgres: ThrowawayPostgres | undefined;
  let db: PostgresLook | undefined;
  let fake: FakeProcess | undefined;
  let driver: ReturnType<typeof driveOcm> | undefined;
  let polling: Promise<void> = Promise.resolve();
  let keepPolling = true;
  let passed = false;
  try {
    postgres = await startThrowawayPostgres();
    const databaseUrl = await postgres.createDatabase('fleetplan_replicas');
    const pg = lookAtPostgres(databaseUrl);
    db = pg;
    fake = await startFake('ocm', fleetFile, path.join(dir, 'fake.log'));
    const ocm = fake;
    const env: NodeJS.ProcessEnv = {
      NODE_ENV: 'production',
      ...cleanEnv(),
      DATABASE_URL: databaseUrl,
      FLEETPLAN_SECRET_KEY: randomBytes(32).toString('hex'),
      FLEETPLAN_PROVIDER: 'ocm',
      FLEETPLAN_OCM_URL: ocm.url,
      FLEETPLAN_OCM_TOKEN: OCM_TOKEN,
      FLEETPLAN_TICK_SECONDS: String(TICK_MS / 1000),
      FLEETPLAN_SEED_DEMO: '0',
      FLEETPLAN_SCHEDULER: 'on',
      FLEETPLAN_WEBHOOK_ALLOW_PRIVATE: '1',
      FLEETPLAN_ADMIN_PASSWORD: ADMIN_PASSWORD,
      NEXT_TELEMETRY_DISABLED: '1',
    };
    const launch = (index: number, port: number) => {
      const s = startServer(env, port, serverLogs[index]!);
      servers.push(s);
      return s;
    };

    // ---- setup: both replicas start together (one migrates, under the advisory lock) ---------
    const ports = [await freePort(), await freePort()];
    const replicas: Replica[] = ports.map((port, i) => ({ port, server: launch(i, port), serving: false, doomed: false }));
    await Promise.all(replicas.map((r) => r.server.ready));
    for (const r of replicas) r.serving = true;
    mark('both replicas serving');
    await waitUntil(
      'the first tick to store the clusters',
      async () => (await pg.query('select name from clusters')).length === CLUSTERS,
      30_000,
      250,
    );
    const imported = await runCli(['import', writeOrganizationFile(dir, 'replica-org', names)], env);
    expect(imported.out).toContain(`${CLUSTERS} managed`);
    expect(imported.code).toBe(0);
    // a webhook for every event of the organization, as crash-restart has
    await pg.execute(
      `insert into webhooks (name, url, secret, events, enabled, created_at, organization_id)
       values ('replicas', $1, 'replicas-secret', '[]', true, now() at time zone 'utc', (select min(id) from organizations))`,
      receiver.url,
    );
    driver = driveOcm(ocm, random);

    // ---- a signed-in session (stored in the database: good on either replica) ------------------
    const base = (r: Replica) => `http://127.0.0.1:${r.port}`;
    const login = await fetch(`${base(replicas[0]!)}/api/trpc/auth.login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: base(replicas[0]!) },
      body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
    });
    expect(login.status, await login.clone().text()).toBe(200);
    const cookie = login.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    expect(cookie).not.toBe('');

    // ---- polls: both replicas, all the time; a failure counts unless that replica was picked to die
    const pollFailures: PollFailure[] = [];
    let polls = 0;
    const pages: { what: string; path: string; headers: Record<string, string> }[] = [
      { what: 'healthz', path: '/api/healthz', headers: {} },
      { what: 'fleet.status', path: '/api/trpc/fleet.status', headers: { cookie } },
    ];
    const pollOnce = async (index: number) => {
      // one server's life: a restart puts a new replica object in its place
      const replica = replicas[index]!;
      if (!replica.serving || replica.doomed) return;
      await Promise.all(
        pages.map(async (page) => {
          const at = Date.now();
          let error: string | null = null;
          try {
            const res = await fetch(`${base(replica)}${page.path}`, { headers: page.headers, signal: AbortSignal.timeout(5_000) });
            const body = await res.text();
            if (res.status !== 200) error = `${res.status} ${body.slice(0, 200)}`;
          } catch (err) {
            error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
          }
          // still not picked to die when the answer came: it had to answer
          if (replica.doomed) return;
          polls++;
          if (error !== null) pollFailures.push({ replica: index, what: page.what, at: at - started, error });
        }),
      );
    };
    polling = (async () => {
      while (keepPolling) {
        await Promise.all([pollOnce(0), pollOnce(1)]);
        await sleep(POLL_EVERY_MS);
      }
    })();

    // ---- the lease's holder, as a replica --------------------------------------------------------
    const leader = async (): Promise<{ index: number; holder: string; expiresMs: number } | null> => {
      const [lease] = await pg.query<{ holder: string; valid: boolean; expires_ms: number }>(
        `select holder, expires_at > now() at time zone 'utc' as valid, extract(epoch from expires_at)::float8 * 1000 as expires_ms
         from scheduler_leases where name = 'scheduler'`,
      );
      if (!lease?.valid) return null;
      const pgid = processGroupOf(Number(lease.holder.split(':').pop()));
      const index = replicas.findIndex((r) => r.server.pgid === pgid && !r.doomed && r.server.alive());
      return index < 0 ? null : { index, holder: lease.holder, expiresMs: lease.expires_ms };
    };
    const waitForLeader = async () => {
      let found: { index: number; holder: string; expiresMs: number } | null = null;
      await waitUntil('a replica to hold the lease', async () => (found = await leader()) !== null, 15_000, 100);
      return found!;
    };

    // ---- kills: the leader's process group, SIGKILLed; restarted; the other must take over ------
    mark('setup done');
    const takeovers: Takeover[] = [];
    const boots: number[] = [];
    /** the first tick a holder other than `killed` started after `killedAt`, and which process group that holder is */
    const nextTickOfAnother = async (killed: string, killedAt: number) => {
      const [next] = await pg.query<{ holder: string; started_ms: number }>(
        `select holder, extract(epoch from started_at)::float8 * 1000 as started_ms from scheduler_ticks
         where holder <> $1 and started_at > (to_timestamp($2::float8 / 1000) at time zone 'utc') order by started_at limit 1`,
        killed,
        killedAt,
      );
      return next ? { ms: Math.round(next.started_ms - killedAt), pgid: processGroupOf(Number(next.holder.split(':').pop())) } : null;
    };
    for (let i = 0; i < KILLS; i++) {
      // both schedulers running (a restarted replica serves before its scheduler starts), the standby's loop once round
      await Promise.all(replicas.map((r) => r.server.printed(/fleetplan scheduler: started/, 30_000)));
      await sleep(TICK_MS);
      let target = await waitForLeader();
      const r = random();
      let mode: Takeover['mode'] = r < 0.35 ? 'on-write' : r < 0.6 ? 'after-write' : 'random';
      let killedAt: number | null = null;
      let leaseLeftMs: number | null = null;
      const killsBefore = (await ocm.get<{ kills: unknown[] }>('/_fake/kills')).kills.length;
      if (mode === 'random') {
        await sleep(Math.floor(random() * 4500));
        target = await waitForLeader();
        replicas[target.index]!.doomed = true;
        killedAt = Date.now();
        leaseLeftMs = Math.round(target.expiresMs - killedAt);
        replicas[target.index]!.server.kill('SIGKILL');
      } else {
        replicas[target.index]!.doomed = true;
        const afterMs = mode === 'on-write' ? 0 : 1 + Math.floor(random() * 40);
        await ocm.post('/_fake/kill-on-write', { pgid: replicas[target.index]!.server.pgid, afterMs });
      }
      const victim = replicas[target.index]!;
      const survivor = replicas[1 - target.index]!;
      const deadline = sleep(10_000).then(() => 'timeout' as const);
      if ((await Promise.race([victim.server.exited, deadline])) === 'timeout') {
        // no write came: kill anyway
        mode = 'random';
        killedAt = Date.now();
        victim.server.kill('SIGKILL');
      }
      const { signal } = await victim.server.exited;
      expect(signal, `replica ${target.index} (kill ${i}) ended by itself`).toBe('SIGKILL');
      await ocm.post('/_fake/disarm');
      const [fired] = (await ocm.get<{ kills: { at: string; afterMs: number }[] }>('/_fake/kills')).kills.slice(killsBefore);
      if (fired) killedAt = Date.parse(fired.at) + fired.afterMs;
      const bootStart = Date.now();
      const restarted: Replica = { port: victim.port, server: launch(target.index, victim.port), serving: false, doomed: false };
      replicas[target.index] = restarted;
      await restarted.server.ready;
      restarted.serving = true;
      boots.push(Date.now() - bootStart);
      // measured now, while the survivor still runs (a later kill may take it)
      const next = await nextTickOfAnother(target.holder, killedAt!);
      takeovers.push({ kill: i, mode, ms: next?.ms ?? null, leaseLeftMs, bySurvivor: next !== null && next.pgid === survivor.server.pgid });
      mark(`kill ${i} (${mode}, replica ${target.index}, ${target.holder}): other replica ticked after ${next?.ms ?? 'never'} ms`);
    }
    mark('kills done');

    // ---- settle: no new releases; every upgrade under way finishes ------------------------------
    driver.stopPublishing();
    await waitUntil(
      'every upgrade attempt to end',
      async () =>
        (await pg.query("select id from upgrade_lifecycles where state not in ('completed','skipped','cancelled','failed','timed-out')"))
          .length === 0,
      30_000,
      500,
    );
    keepPolling = false;
    await polling;
    for (const s of replicas.map((x) => x.server)) s.kill('SIGTERM');
    for (const s of replicas.map((x) => x.server)) await s.gone(20_000);
    await driver.stop();
    mark('settled');

    // ---- what the fake saw, against what fleetplan recorded ------------------------------------
    const { writes, refusals } = await ocm.get<{ writes: OcmWrite[]; refusals: { cluster: string; reason: string }[] }>('/_fake/writes');
    const posts = writes.filter((w) => w.method === 'POST');
    const attempts = await pg.query<{ cluster_name: string; to_version: string; state: string; requested: boolean; confirmed: boolean }>(
      `select cluster_name, to_version, state, start_requested_at is not null as requested, start_confirmed_at is not null as confirmed
       from upgrade_lifecycles`,
    );
    const intents = await pg.query<{ cluster_name: string; version: string; status: string; error: string | null }>(
      "select cluster_name, version, status, error from action_intents where kind = 'start-upgrade'",
    );
    const startedAttempts = attempts.filter((x) => x.requested);
    const ticks = await pg.query<{ id: number; status: string; recorded: number | null; stored: number }>(
      `select t.id, t.status, (t.summary ->> 'decisionsRecorded')::int as recorded,
              (select count(*)::int from decisions d where d.tick_id = t.id) as stored
       from scheduler_ticks t where t.finished_at is not null`,
    );
    const succeeded = ticks.filter((t) => t.status === 'succeeded');
    // every tick on the test's clock, kept with the logs when the test fails
    const timeline = await pg.query(
      `select id, holder, status, round(extract(epoch from started_at)::numeric * 1000 - $1)::int as started_ms,
              round(extract(epoch from finished_at)::numeric * 1000 - $1)::int as finished_ms, error
       from scheduler_ticks order by id`,
      started,
    );
    fs.writeFileSync(path.join(dir, 'ticks.json'), JSON.stringify(timeline, null, 1));
    const measured = takeovers.flatMap((t) => (t.ms === null ? [] : [t.ms]));
    const modes = takeovers.reduce<Record<string, number>>((m, k) => ({ ...m, [k.mode]: (m[k.mode] ?? 0) + 1 }), {});
    notes.push(
      `kills: ${KILLS} (${Object.entries(modes)
        .map(([m, n]) => `${n} ${m}`)
        .join(', ')}); restart to serving: ${(boots.reduce((a, b) => a + b, 0) / Math.max(1, boots.length) / 1000).toFixed(1)} s average`,
      `takeover (kill to the other replica's next tick): ${measured.join(', ')} ms; max ${Math.max(...measured)} ms; ` +
        `lease left at the random kills: ${takeovers.flatMap((t) => (t.leaseLeftMs === null ? [] : [t.leaseLeftMs])).join(', ')} ms`,
      `polls of live replicas: ${polls}, failed: ${pollFailures.length}`,
      `provider writes: ${posts.length} POSTs, ${writes.length - posts.length} DELETEs, ${refusals.length} refusals; attempts ${attempts.length}, started ${startedAttempts.length}, completed ${attempts.filter((x) => x.state === 'completed').length}`,
      `ticks finished: ${ticks.length} (${succeeded.length} succeeded, ${ticks.filter((t) => t.status === 'failed').length} failed); decisions recorded ${succeeded.reduce((n, t) => n + (t.recorded ?? 0), 0)}`,
    );

    expect(driver.errors).toEqual([]);
    // the survivor answered every poll
    expect(pollFailures).toEqual([]);
    expectOnePostPerRecordedStart(
      { writes, refusals },
      attempts.map((x) => ({
        target: `${x.cluster_name}@${x.to_version}`,
        state: x.state,
        requested: x.requested,
        confirmed: x.confirmed,
      })),
      intents.map((x) => ({ target: `${x.cluster_name}@${x.version}`, status: x.status })),
    );
    // no decision lost: every tick that finished has the decisions its summary counts
    expect(succeeded.filter((t) => t.recorded !== t.stored)).toEqual([]);
    // each lifecycle transition once
    const doubled = await pg.query(
      `select lifecycle_id, to_state, count(*)::int as n from upgrade_lifecycle_transitions
       group by lifecycle_id, to_state having count(*) > 1`,
    );
    expect(doubled).toEqual([]);

    // the test did what it claims: kills on writes, many writes across the kills, decisions made
    expect(takeovers.filter((k) => k.mode !== 'random').length).toBeGreaterThanOrEqual(2);
    expect(posts.length).toBeGreaterThanOrEqual(2 * CLUSTERS);
    expect(succeeded.some((t) => (t.recorded ?? 0) > 0)).toBe(true);
    expect(polls).toBeGreaterThanOrEqual(10 * KILLS);
    // after each kill, the other replica ticked within two intervals (soft: the checks above are reported too)
    expect.soft(takeovers.filter((t) => t.ms === null || t.ms > 2 * TICK_MS || !t.bySurvivor)).toEqual([]);
    passed = testInfo.errors.length === 0; // a soft failure keeps the logs too
  } finally {
    keepPolling = false;
    await polling.catch(() => undefined);
    await driver?.stop();
    for (const s of servers) if (s.alive()) s.kill('SIGKILL');
    await Promise.all(servers.map((s) => s.exited));
    await fake?.stop();
    await receiver.close();
    await db?.close();
    postgres?.stop();
    notes.push(`runtime ${Math.round((Date.now() - started) / 1000)} s`);
    if (driver?.errors.length) notes.push(`driver errors: ${driver.errors.slice(0, 10).join(' | ')}`);
    await testInfo.attach('replicas-summary', { body: notes.join('\n'), contentType: 'text/plain' });
    console.log(`replicas e2e: ${notes.join('; ')}`);
    if (passed) fs.rmSync(dir, { recursive: true, force: true });
    else console.log(`replicas e2e: logs kept in ${dir}`);
  }
});

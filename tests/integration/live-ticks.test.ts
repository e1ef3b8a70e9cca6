// Live updates (issue 15, point 4): a finished tick reaches every open page, whichever replica ran
// it. On PostgreSQL the tick's commit NOTIFYs every replica's one LISTEN connection (nothing for a
// tick whose transaction rolled back); on SQLite the latest tick is read once a second. GET
// /api/live streams them to signed-in pages.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openDatabase, type Db } from '@/db/open-database';
import { bootstrapAuth } from '@/server/auth/bootstrap';
import { parseEnv } from '@/server/env';
import { finishTick, insertTick, listenForFinishedTicks } from '@/server/repositories/scheduler-repository';
import { withTransaction } from '@/server/repositories/transaction';
import { createServices } from '@/server/services/create-services';
import { watchFinishedTicks, type FinishedTick } from '@/server/services/live-ticks';
import { onBothDatabases } from '@/tests/support/both-databases';
import { waitFor } from '@/tests/support/wait-for';

vi.mock('server-only', () => ({}));

const AT = new Date('2026-11-27T09:00:00.000Z');

async function finishedTick(db: Db): Promise<number> {
  const id = await insertTick(db, { startedAt: AT, dryRun: false, holder: 'replica-a' });
  await withTransaction(db, async (tx) => await finishTick(tx, id, { finishedAt: AT, status: 'succeeded' }));
  return id;
}

const unsubscribes: (() => void)[] = [];
afterEach(() => unsubscribes.splice(0).forEach((u) => u()));

onBothDatabases('finished ticks, live', (open, kind) => {
  it('tells a watcher of each tick finished once it watches, once, in order; none from before', async () => {
    const db = await open();
    const before = await finishedTick(db);
    const heard: FinishedTick[] = [];
    unsubscribes.push(watchFinishedTicks(db, (t) => heard.push(t)));
    // the watcher reads where it starts from (and listens) in the background: a tick finished
    // before that read is not news. Ticks finish until one is heard, however slow the machine.
    const probes: number[] = [];
    await waitFor(async () => {
      if (heard.length > 0) return true;
      probes.push(await finishedTick(db));
      await new Promise((r) => setTimeout(r, 200));
      return undefined;
    }, 20_000);
    const heardBefore = heard.length;
    const first = await finishedTick(db);
    await waitFor(() => (heard.length >= heardBefore + 1 ? true : undefined), 5_000);
    const second = await finishedTick(db);
    await waitFor(() => (heard.length >= heardBefore + 2 ? true : undefined), 5_000);
    await new Promise((r) => setTimeout(r, 1_200)); // a poll after the notification adds nothing
    const ids = heard.map((t) => t.id);
    expect(ids.slice(heardBefore)).toEqual([first, second]);
    // each once, in order, and only ticks finished after the watcher started
    expect(ids).toEqual([...new Set(ids)].sort((x, y) => x - y));
    expect(ids.every((id) => id === first || id === second || probes.includes(id))).toBe(true);
    expect(ids).not.toContain(before);
    expect(heard[0]!.finishedAt).toBe(AT.toISOString());
  });

  if (kind === 'postgres')
    it('NOTIFYs at commit only: a tick finished in a transaction that rolled back is not announced', async () => {
      const db = await open();
      const heard: number[] = [];
      const listening = await listenForFinishedTicks(
        db,
        (t) => heard.push(t.id),
        () => undefined,
      );
      expect(listening).not.toBeNull();
      try {
        const id = await insertTick(db, { startedAt: AT, dryRun: false, holder: 'replica-a' });
        await expect(
          withTransaction(db, async (tx) => {
            await finishTick(tx, id, { finishedAt: AT, status: 'failed', error: 'x' });
            throw new Error('rolled back');
          }),
        ).rejects.toThrow('rolled back');
        const committed = await finishedTick(db);
        await waitFor(() => (heard.length > 0 ? true : undefined), 5_000);
        await new Promise((r) => setTimeout(r, 200));
        expect(heard).toEqual([committed]);
      } finally {
        await listening!.stop();
      }
    });
  else
    it('has no notifications on SQLite (the watcher reads instead)', async () => {
      expect(
        await listenForFinishedTicks(
          await open(),
          () => undefined,
          () => undefined,
        ),
      ).toBeNull();
    });
});

describe('GET /api/live', () => {
  const globalForDb = globalThis as unknown as { __fleetplanDb?: Db };

  it('streams a `tick` event when a tick finishes (the first one too), to a caller with a session or token only', async () => {
    const db = openDatabase(':memory:');
    await bootstrapAuth(db, { env: parseEnv({ FLEETPLAN_ADMIN_PASSWORD: 'correct horse battery' }), log: () => {} });
    globalForDb.__fleetplanDb = db;
    const { GET } = await import('@/app/api/live/route');
    expect((await GET(new Request('http://fleet.test/api/live'))).status).toBe(401);

    const services = createServices({ db, fleetNow: () => AT, realNow: () => new Date(), env: parseEnv({}) });
    const { token } = await services.tokens.create({
      name: 'live',
      scope: 'viewer',
      actor: { name: 'admin', role: 'admin', via: 'session', userId: 1 },
    });
    const aborted = new AbortController();
    const res = await GET(
      new Request('http://fleet.test/api/live', { headers: { authorization: `Bearer ${token}` }, signal: aborted.signal }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const readUntil = async (pattern: RegExp) => {
      while (!pattern.test(text)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended: ${text}`);
        text += decoder.decode(value);
      }
    };
    await readUntil(/^retry: 3000\n\n/);
    await new Promise((r) => setTimeout(r, 300));
    const id = await finishedTick(db);
    await readUntil(/event: tick\n/);
    expect(text).toContain(`event: tick\ndata: ${JSON.stringify({ id, finishedAt: AT.toISOString() })}\n\n`);
    aborted.abort();
    db.$client.close();
  });
});

// The tick on a route (plan/route-following.ts) against the fake provider: a target two minors away
// over a stored update graph gives the route's next hop, whose start switches the cluster's channel
// first — each provider write once, with its own intent, and the start only after the switch.
import { expect, it } from 'vitest';
import { makeGraphText } from '@/server/domain/path/test-builders';
import { createFakeProvider } from '@/server/integrations/providers/fake-provider';
import { upsertGraph } from '@/server/repositories/update-graph-repository';
import { onBothDatabases } from '@/tests/support/both-databases';
import { runTick } from './run-tick';
import { fleetRows, insertTestFleet } from './test-fleet';

const NOW = new Date('2021-08-30T18:00:00Z'); // decisions at NOW take the slot 18:07
const MIN = 60_000;

// 4.13.1 reaches 4.15.3 only through 4.14.1; 4.14.5 (higher, offered) leads nowhere
const GRAPH = makeGraphText({
  nodes: [
    ['4.13.1', ['stable-4.13', 'stable-4.14']],
    ['4.14.1', ['stable-4.14', 'stable-4.15']],
    ['4.14.5', ['stable-4.14']],
    ['4.15.3', ['stable-4.15']],
  ],
  edges: [
    ['4.13.1', '4.14.1'],
    ['4.13.1', '4.14.5'],
    ['4.14.1', '4.15.3'],
  ],
});

onBothDatabases('runTick on a route', (open) => {
  async function setup(failChannelTimes = 0) {
    const db = await open();
    const read = fleetRows(db);
    const { fakeClusters } = await insertTestFleet(
      db,
      { clusters: [{ name: 'c1', version: '4.13.1', releases: ['4.14.1', '4.14.5', '4.15.3'] }] },
      NOW,
    );
    await db.update(read.t.organizations).set({ targetVersion: '4.15.*' });
    await upsertGraph(db, {
      name: 'test-graph',
      channel: null,
      architecture: 'amd64',
      capturedAt: NOW,
      source: 'test',
      nodeCount: 4,
      edgeCount: 3,
      document: GRAPH,
      importedAt: NOW,
    });
    let failures = failChannelTimes;
    const provider = createFakeProvider({
      clusters: fakeClusters,
      failWith: (op) => (op === 'channel' && failures-- > 0 ? new Error('channel switch refused (test)') : undefined),
    });
    const tick = (minutes: number) =>
      runTick({ db, provider, now: new Date(NOW.getTime() + minutes * MIN), holder: 'test', realNow: () => NOW });
    const intents = async () => (await read.intents()).map((i) => [i.idempotencyKey, i.kind, i.status]);
    return { read, provider, tick, intents };
  }

  it('schedules the route hop, switches the channel once, then starts once', async () => {
    const { read, provider, tick, intents } = await setup();
    await tick(0);
    expect(await read.attempt()).toMatchObject({ state: 'scheduled', toVersion: '4.14.1', channel: 'stable-4.14' });
    expect((await read.clusters())[0]!.lastDecisionMessage).toContain('on the route 4.13.1 → 4.14.1 → 4.15.3; next hop 4.14.1');
    await tick(7);
    await tick(8);
    expect(
      provider
        .records()
        .map((r) => [r.op, r.op === 'channel' ? r.channel : r.op === 'approve' ? r.name : 'version' in r ? r.version : r.op]),
    ).toEqual([
      ['channel', 'stable-4.14'],
      ['trigger', '4.14.1'],
    ]);
    expect(await intents()).toEqual([
      ['1:channel', 'set-channel', 'done'],
      ['1:start', 'start-upgrade', 'done'],
    ]);
    const messages = (await read.transitions()).map((tr) => tr.message);
    expect(messages).toContain('start of the upgrade to 4.14.1 requested; the channel is switched to stable-4.14 first');
  });

  it('a refused switch holds the start; the next tick switches and starts, each once', async () => {
    const { provider, tick, intents } = await setup(1);
    await tick(0);
    await tick(7);
    expect(provider.records()).toEqual([]);
    expect(await intents()).toEqual([
      ['1:channel', 'set-channel', 'pending'],
      ['1:start', 'start-upgrade', 'pending'],
    ]);
    await tick(8);
    await tick(9);
    expect(provider.records().map((r) => r.op)).toEqual(['channel', 'trigger']);
    expect(await intents()).toEqual([
      ['1:channel', 'set-channel', 'done'],
      ['1:start', 'start-upgrade', 'done'],
    ]);
  });
});

// The tick on an EUS-to-EUS route with lifecycle.eusControlPlaneOnly (lifecycle/eus-procedure.ts)
// against the fake provider with MachineConfigPools: one attempt for the whole route; the worker
// pool paused, both hops (the channel switched first, the admin gate acknowledged between them),
// the pool unpaused and watched until rolled out — each provider write once, with its own intent.
import { expect, it } from 'vitest';
import { makeGraphText } from '@/server/domain/path/test-builders';
import { createFakeProvider, type FakeRecord } from '@/server/integrations/providers/fake-provider';
import { upsertGraph } from '@/server/repositories/update-graph-repository';
import { onBothDatabases } from '@/tests/support/both-databases';
import { runTick } from './run-tick';
import { fleetRows, insertTestFleet } from './test-fleet';

const NOW = new Date('2021-08-30T18:00:00Z'); // decisions at NOW take the slot 18:07
const MIN = 60_000;
const GATE = 'ack-4.15-kube-1.29-api-removals-in-4.16';

const GRAPH = makeGraphText({
  nodes: [
    ['4.14.38', ['stable-4.14', 'eus-4.14', 'eus-4.16']],
    ['4.15.45', ['stable-4.15', 'eus-4.16']],
    ['4.16.20', ['stable-4.16', 'eus-4.16']],
  ],
  edges: [
    ['4.14.38', '4.15.45'],
    ['4.15.45', '4.16.20'],
  ],
});

onBothDatabases('runTick: the EUS-to-EUS control-plane-only procedure', (open) => {
  async function setup(opts: { pools?: boolean; eus?: boolean } = {}) {
    const db = await open();
    const read = fleetRows(db);
    const { fakeClusters } = await insertTestFleet(
      db,
      {
        clusters: [
          {
            name: 'e1',
            version: '4.14.38',
            releases: ['4.15.45', '4.16.20'],
            ...(opts.eus === false ? {} : { lifecycle: { eusControlPlaneOnly: true } }),
          },
        ],
      },
      NOW,
    );
    await db.update(read.t.organizations).set({ targetVersion: '4.16.*' });
    await db.update(read.t.clusters).set({ channel: 'eus-4.14' });
    await upsertGraph(db, {
      name: 'eus-graph',
      channel: null,
      architecture: 'amd64',
      capturedAt: NOW,
      source: 'test',
      nodeCount: 3,
      edgeCount: 2,
      document: GRAPH,
      importedAt: NOW,
    });
    const provider = createFakeProvider({
      clusters: fakeClusters.map((c) => ({ ...c, channel: 'eus-4.14' })),
      durationMs: 30 * MIN,
      pools: opts.pools ?? true,
    });
    let at = 0;
    const tick = async (minutes: number) => {
      at = minutes;
      const r = await runTick({ db, provider, now: new Date(NOW.getTime() + minutes * MIN), holder: 'test', realNow: () => NOW });
      if (r.status !== 'succeeded') throw new Error(JSON.stringify(r));
    };
    const until = async (done: () => Promise<boolean>, step = 10, max = 60) => {
      for (let i = 0; i < max && !(await done()); i++) await tick(at + step);
    };
    const attempts = read.attempts;
    const writes = () =>
      provider
        .records()
        .map((r: FakeRecord) =>
          r.op === 'pool'
            ? `${r.paused ? 'pause' : 'unpause'}:${r.pool}`
            : r.op === 'ack'
              ? `ack:${r.gate}`
              : r.op === 'channel'
                ? `channel:${r.channel}`
                : `${r.op}:${'version' in r ? r.version : ''}`,
        );
    const intents = async () => (await read.intents()).map((i) => [i.idempotencyKey, i.kind, i.status]);
    return { read, provider, tick, until, attempts, writes, intents };
  }

  it('takes the whole route in one attempt: pause, hop 1, ack, hop 2, unpause, rollout — each write once with its intent', async () => {
    const { read, tick, until, attempts, writes, intents } = await setup();
    await tick(0);
    expect(await attempts()).toEqual([
      expect.objectContaining({ state: 'scheduled', fromVersion: '4.14.38', toVersion: '4.16.20', channel: null }),
    ]);
    expect((await attempts())[0]!.eusProcedure).toMatchObject({
      route: ['4.14.38', '4.15.45', '4.16.20'],
      hops: [{ channel: 'eus-4.16' }, { channel: null }],
    });
    // held in fleetplan's view as its first hop (what the provider will be asked for; the simulator
    // reads this view as its own state), not the route's end
    expect((await read.clusters())[0]!.currentUpgrade).toMatchObject({ version: '4.15.45', state: 'scheduled' });
    await tick(7);
    expect((await attempts())[0]!.state).toBe('pausing-workers');
    await until(async () => {
      const [attempt] = await attempts();
      return attempt!.state === 'completed' || attempt!.finishedAt !== null;
    });
    expect(await attempts()).toHaveLength(1);
    expect((await attempts())[0]).toMatchObject({ state: 'completed', toVersion: '4.16.20' });
    expect(writes()).toEqual(['pause:worker', 'channel:eus-4.16', 'trigger:4.15.45', `ack:${GATE}`, 'trigger:4.16.20', 'unpause:worker']);
    expect(await intents()).toEqual([
      ['1:pause:worker', 'pause-pool', 'done'],
      ['1:hop1:channel', 'set-channel', 'done'],
      ['1:hop1:start', 'start-upgrade', 'done'],
      [`1:ack:${GATE}`, 'admin-ack', 'done'],
      ['1:hop2:start', 'start-upgrade', 'done'],
      ['1:unpause:worker', 'unpause-pool', 'done'],
    ]);
    const states = (await read.transitions()).map((tr) => tr.toState).filter((s, i, all) => s !== all[i - 1]);
    expect(states).toEqual([
      'scheduled',
      'pre-checks',
      'pausing-workers',
      'control-plane-hop',
      'unpausing-workers',
      'workers-rolling',
      'post-checks',
      'completed',
    ]);
    const cluster = (await read.clusters())[0]!;
    expect(cluster.version).toBe('4.16.20');
  });

  it('on a provider without MachineConfigPools the option is not applied: the route goes hop by hop, saying why', async () => {
    const { tick, attempts, writes } = await setup({ pools: false });
    await tick(0);
    expect(await attempts()).toEqual([expect.objectContaining({ toVersion: '4.15.45', channel: 'eus-4.16', eusProcedure: null })]);
    expect((await attempts())[0]!.message).toContain(
      'lifecycle.eusControlPlaneOnly is not applied: the fake provider cannot pause MachineConfigPools',
    );
    await tick(7);
    expect(writes()).toEqual(['channel:eus-4.16', 'trigger:4.15.45']);
  });

  it('without the option nothing changes: the next hop only', async () => {
    const { tick, attempts } = await setup({ eus: false });
    await tick(0);
    expect(await attempts()).toEqual([expect.objectContaining({ toVersion: '4.15.45', eusProcedure: null })]);
    expect((await attempts())[0]!.message).not.toContain('eusControlPlaneOnly');
  });
});

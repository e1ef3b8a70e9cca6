// The tick around the operator-approvals phase, against the fake provider with OLM InstallPlans:
// approvals only after the platform upgrade, only of selected operators, each once (also across a
// crash between the intent and the call, and after the call), the timeout, and a provider without
// InstallPlans (OCM) skipping the phase with a visible note.
import { eq } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { createFakeProvider, type FakeProvider } from '@/server/integrations/providers/fake-provider';
import type { FleetProvider, InstallPlanReading } from '@/server/integrations/providers/types';
import { onBothDatabases } from '@/tests/support/both-databases';
import { runTick } from './run-tick';
import { fleetRows, insertTestFleet, type TestFleet } from './test-fleet';

const NOW = new Date('2021-08-30T18:00:00Z'); // decisions at NOW take the slot 18:07; the fake upgrade takes 30 min
const MIN = 60_000;

const plan = (name: string, subscription: string, patch: Partial<InstallPlanReading> = {}): InstallPlanReading => ({
  namespace: 'openshift-operators',
  name,
  approval: 'Manual',
  approved: false,
  phase: 'RequiresApproval',
  csvNames: [`${subscription}.v1.2.0`],
  subscriptions: [{ namespace: 'openshift-operators', name: subscription, package: subscription }],
  ...patch,
});

const PLANS = [
  plan('install-gitops', 'openshift-gitops-operator'),
  plan('install-storage', 'local-storage-operator'),
  // an automatic plan OLM already ran: never touched
  plan('install-auto', 'cert-manager', { approval: 'Automatic', approved: true, phase: 'Complete' }),
];

const POLICY = { operatorApprovals: { include: ['*'], exclude: ['local-storage-operator'], timeout: '1h' } };

/**
 * A provider whose approval call never returns: the process "dies" there (the tick never goes on).
 * `reached` settles when the tick got there (before the call, or after it), so the test looks at
 * what the crash leaves only then.
 */
function dyingAt(provider: FakeProvider, when: 'before-call' | 'after-call'): { provider: FleetProvider; reached: Promise<void> } {
  let reachedCall!: () => void;
  const reached = new Promise<void>((resolve) => (reachedCall = resolve));
  return {
    provider: {
      ...provider,
      approveInstallPlan: async (req, now) => {
        if (when === 'after-call') await provider.approveInstallPlan!(req, now);
        reachedCall();
        return new Promise<never>(() => {});
      },
    },
    reached,
  };
}

onBothDatabases('runTick operator approvals', (open) => {
  async function setup(
    lifecycle: Record<string, unknown> | undefined,
    providerOptions: { installPlans?: boolean; installMs?: number } = {},
  ) {
    const db = await open();
    const read = fleetRows(db);
    const { t } = read;
    const fleet: TestFleet = {
      clusters: [{ name: 'c1', version: '4.13.1', releases: ['4.13.2'], soakDays: 0, ...(lifecycle ? { lifecycle } : {}) }],
    };
    const { fakeClusters } = await insertTestFleet(db, fleet, NOW);
    fakeClusters[0]!.installPlans = PLANS.map((p) => ({ ...p }));
    const provider = createFakeProvider({ clusters: fakeClusters, installPlans: true, ...providerOptions });
    const tick = (minutes: number, p: FleetProvider = provider) =>
      runTick({ db, provider: p, now: new Date(NOW.getTime() + minutes * MIN), holder: 'test', realNow: () => NOW });
    const attempt = async () => (await read.attempt())!;
    const transitions = async () =>
      (await read.transitions()).map((r) => ({ from: r.fromState, to: r.toState, reason: r.reason, message: r.message }));
    const approvals = () => provider.records().filter((r) => r.op === 'approve');
    const approveIntents = () =>
      db.select().from(t.actionIntents).where(eq(t.actionIntents.kind, 'approve-installplan')).orderBy(t.actionIntents.id);
    return { db, read, provider, fakeClusters, tick, attempt, transitions, approvals, approveIntents };
  }

  it('after the platform upgrade approves the selected pending plans once, leaves the excluded one, waits for Complete', async () => {
    const { provider, tick, attempt, transitions, approvals, approveIntents } = await setup(POLICY);
    for (const m of [0, 7, 8, 20, 36]) await tick(m);
    // the platform upgrade is still running (it completes at 18:37): nothing approved yet
    expect(approvals()).toEqual([]);
    expect(provider.calls.filter((c) => c.op === 'list-installplans')).toEqual([]);
    await tick(40); // the provider reports it completed: the phase begins
    expect(await attempt()).toMatchObject({ state: 'operator-approvals' });
    expect(approvals()).toEqual([]);
    await tick(41); // plans read: the gitops plan approved
    expect(approvals().map((r) => r.op === 'approve' && r.name)).toEqual(['install-gitops']);
    expect((await attempt()).operatorApprovals).toMatchObject({
      approved: [
        { name: 'install-gitops', operators: ['openshift-operators/openshift-gitops-operator'], confirmedAt: NOW.getTime() + 41 * MIN },
      ],
      left: [{ name: 'install-storage', why: 'excluded (operatorApprovals.exclude: local-storage-operator)' }],
      doneAt: null,
    });
    for (const m of [42, 43]) await tick(m); // Installing: waited for, never approved again
    expect((await attempt()).state).toBe('operator-approvals');
    await tick(47); // Complete (5 min after the approval)
    expect(await attempt()).toMatchObject({ state: 'completed' });
    expect(approvals()).toHaveLength(1);
    expect(await approveIntents()).toMatchObject([
      { idempotencyKey: `${(await attempt()).id}:approve:openshift-operators/install-gitops`, status: 'done' },
    ]);
    const phase = (await transitions()).filter((tr) => tr.from === 'operator-approvals' || tr.to === 'operator-approvals');
    expect(phase.map((tr) => [tr.from, tr.to])).toEqual([
      ['upgrading', 'operator-approvals'],
      ['operator-approvals', 'operator-approvals'],
      ['operator-approvals', 'operator-approvals'],
      ['operator-approvals', 'post-checks'],
    ]);
    expect(phase[1]!.message).toBe(
      'approving InstallPlan openshift-operators/install-gitops (openshift-operators/openshift-gitops-operator → openshift-gitops-operator.v1.2.0)',
    );
    expect(phase[2]!.message).toMatch(/^leaving InstallPlan openshift-operators\/install-storage .* pending: excluded/);
    expect(phase[3]!.message).toMatch(
      /^operator approvals done: approved openshift-operators\/install-gitops .*; left pending: .*install-storage/,
    );
  });

  it('a crash between the intent and the call: the next tick asks again with the same key, the plan is approved once', async () => {
    const { read, provider, tick, attempt, approvals, approveIntents } = await setup(POLICY);
    for (const m of [0, 7, 8, 40]) await tick(m);
    const dying = dyingAt(provider, 'before-call');
    void tick(41, dying.provider); // never settles: the process died in the call
    await dying.reached;
    // what the crash leaves: the approval recorded as requested, its intent pending, nothing at the provider
    expect(await approveIntents()).toMatchObject([{ status: 'pending', attempts: 0 }]);
    expect((await attempt()).operatorApprovals!.approved).toMatchObject([{ name: 'install-gitops', confirmedAt: null }]);
    expect(approvals()).toEqual([]);
    // the lease is re-entrant for the same holder; the interrupted tick is marked as such
    await tick(42);
    expect(approvals()).toHaveLength(1);
    expect(approvals()[0]).toMatchObject({ key: `${(await attempt()).id}:approve:openshift-operators/install-gitops` });
    expect(await approveIntents()).toMatchObject([{ status: 'done' }]);
    for (const m of [43, 48]) await tick(m);
    expect(approvals()).toHaveLength(1);
    expect((await attempt()).state).toBe('completed');
    expect((await read.ticks()).filter((r) => r.error?.startsWith('interrupted'))).toHaveLength(1);
  });

  it('a crash after the call: the next read sees approved: true, settles the intent and never patches again', async () => {
    const { provider, tick, attempt, approvals, approveIntents } = await setup(POLICY);
    for (const m of [0, 7, 8, 40]) await tick(m);
    const dying = dyingAt(provider, 'after-call');
    void tick(41, dying.provider);
    await dying.reached;
    expect(approvals()).toHaveLength(1);
    expect(await approveIntents()).toMatchObject([{ status: 'pending' }]);
    const callsBefore = provider.calls.filter((c) => c.op === 'approve').length;
    await tick(42);
    expect(provider.calls.filter((c) => c.op === 'approve').length).toBe(callsBefore);
    expect(await approveIntents()).toMatchObject([{ status: 'done', error: 'reconciled: the InstallPlan is approved' }]);
    expect((await attempt()).operatorApprovals!.approved[0]!.confirmedAt).toBe(NOW.getTime() + 42 * MIN);
    await tick(47);
    expect((await attempt()).state).toBe('completed');
  });

  it('a plan changed since it was read (nothing written): neither done nor failed; the next tick reads it and approves it once', async () => {
    const { provider, tick, attempt, approvals, approveIntents } = await setup(POLICY);
    for (const m of [0, 7, 8, 40]) await tick(m);
    let conflicts = 0;
    const changedOnce: FleetProvider = {
      ...provider,
      approveInstallPlan: async (req, now) => (conflicts++ === 0 ? 'changed-since-read' : provider.approveInstallPlan!(req, now)),
    };
    await tick(41, changedOnce);
    expect(approvals()).toEqual([]);
    expect(await approveIntents()).toMatchObject([{ status: 'pending', attempts: 0, error: null }]);
    expect((await attempt()).operatorApprovals!.approved).toMatchObject([{ name: 'install-gitops', confirmedAt: null }]);
    await tick(42, changedOnce);
    expect(approvals()).toHaveLength(1);
    expect(await approveIntents()).toMatchObject([{ status: 'done' }]);
    expect((await attempt()).operatorApprovals!.approved[0]!.confirmedAt).toBe(NOW.getTime() + 42 * MIN);
    for (const m of [43, 48]) await tick(m, changedOnce);
    expect(approvals()).toHaveLength(1);
    expect((await attempt()).state).toBe('completed');
  });

  it('approved plans not Complete within the timeout fail the attempt (OPERATOR_APPROVAL_TIMEOUT), which halts', async () => {
    const { read, tick, attempt } = await setup(POLICY, { installMs: 3 * 60 * MIN });
    for (const m of [0, 7, 8, 40, 41, 70, 100]) await tick(m);
    expect((await attempt()).state).toBe('operator-approvals');
    await tick(101); // 1 h 1 min after the phase began
    expect(await attempt()).toMatchObject({ state: 'failed', reason: 'OPERATOR_APPROVAL_TIMEOUT', haltsOnFailure: true });
    expect((await attempt()).message).toMatch(
      /^not done 1h after the platform upgrade: openshift-operators\/install-gitops Installing; approved/,
    );
    expect((await read.clusters())[0]!.upgradeState).toBe('failed');
  });

  it('an approval the cluster keeps refusing is asked again each tick with its key; the timeout fails the attempt and its intent', async () => {
    const db = await open();
    const read = fleetRows(db);
    const { t } = read;
    const fleet: TestFleet = { clusters: [{ name: 'c1', version: '4.13.1', releases: ['4.13.2'], soakDays: 0, lifecycle: POLICY }] };
    const { fakeClusters } = await insertTestFleet(db, fleet, NOW);
    fakeClusters[0]!.installPlans = PLANS.map((p) => ({ ...p }));
    const forbidden = 'installplans.operators.coreos.com "install-gitops" is forbidden';
    const provider = createFakeProvider({
      clusters: fakeClusters,
      installPlans: true,
      failWith: (op) => (op === 'approve' ? new Error(forbidden) : undefined),
    });
    const tick = (minutes: number) =>
      runTick({ db, provider, now: new Date(NOW.getTime() + minutes * MIN), holder: 'test', realNow: () => NOW });
    for (const m of [0, 7, 8, 40, 41, 60]) await tick(m);
    expect(provider.calls.filter((c) => c.op === 'approve')).toHaveLength(2);
    const intents = () =>
      db.select().from(t.actionIntents).where(eq(t.actionIntents.kind, 'approve-installplan')).orderBy(t.actionIntents.id);
    expect(await intents()).toMatchObject([{ status: 'pending', attempts: 2, error: forbidden }]);
    await tick(101);
    expect(await read.attempt()).toMatchObject({ state: 'failed', reason: 'OPERATOR_APPROVAL_TIMEOUT' });
    expect(provider.calls.filter((c) => c.op === 'approve')).toHaveLength(2);
    // the attempt ended: nothing asks again, so its intent is failed, not left pending
    expect(await intents()).toMatchObject([
      { status: 'failed', error: expect.stringMatching(/^OPERATOR_APPROVAL_TIMEOUT: not done 1h after/) as unknown },
    ]);
  });

  it('a provider without InstallPlans (OCM) skips the phase with a visible note', async () => {
    const { provider, tick, attempt, transitions } = await setup(POLICY, { installPlans: false });
    const ocm: FleetProvider = { ...provider, name: 'ocm' };
    for (const m of [0, 7, 8, 40]) await tick(m, ocm);
    expect((await attempt()).state).toBe('completed');
    expect((await transitions()).filter((tr) => tr.from === 'operator-approvals')).toEqual([
      {
        from: 'operator-approvals',
        to: 'post-checks',
        reason: null,
        message: 'operator approvals skipped: not supported on OCM: it has no OLM InstallPlans to approve (approve them on the cluster)',
      },
    ]);
  });

  it('without lifecycle.operatorApprovals nothing is read or approved and the states are as before', async () => {
    const { provider, tick, transitions, approvals } = await setup(undefined);
    for (const m of [0, 7, 8, 40, 41]) await tick(m);
    expect((await transitions()).map((tr) => tr.to)).toEqual([
      'scheduled',
      'pre-checks',
      'started',
      'upgrading',
      'post-checks',
      'completed',
    ]);
    expect(approvals()).toEqual([]);
    expect(provider.calls.filter((c) => c.op === 'list-installplans')).toEqual([]);
  });
});

// The operator-approvals phase: the option, the selection rule, and the machine's table of steps
// from the platform upgrade's completion to post-checks (or a failure).
import { describe, expect, it } from 'vitest';
import { NO_FLEET_OBSTACLES } from './gates';
import { ALLOWED_TRANSITIONS, newAttempt, stepAttempt, type StepInput, type UpgradeAttempt } from './machine';
import type { ClusterReading } from './observation';
import { DEFAULT_LIFECYCLE_OPTIONS, parseLifecycleOptions, type OperatorApprovalsConfig } from './options';
import { selectPlan, type InstallPlanReading, type InstallPlansReading } from './operator-approvals';

const M = 60_000;
const H = 60 * M;
const SLOT = Date.parse('2024-05-07T22:00:00Z');
const DONE = SLOT + H; // the provider reports the platform upgrade completed

const plan = (name: string, sub: string, patch: Partial<InstallPlanReading> = {}): InstallPlanReading => ({
  namespace: 'openshift-operators',
  name,
  approval: 'Manual',
  approved: false,
  phase: 'RequiresApproval',
  csvNames: [`${sub}.v2`],
  subscriptions: [{ namespace: 'openshift-operators', name: sub, package: `${sub}-pkg` }],
  ...patch,
});

const config = (patch: Partial<OperatorApprovalsConfig> = {}): OperatorApprovalsConfig => ({
  include: ['*'],
  exclude: ['local-storage'],
  timeoutMs: H,
  ...patch,
});

const upgraded: ClusterReading = {
  ok: true,
  cluster: {
    version: '4.13.12',
    availableUpgrades: [],
    conditionalUpgrades: [],
    upgradeable: { status: 'True' },
    health: { operators: [], alerts: [], other: [] },
    currentUpgrade: null,
    lastUpgrade: { version: '4.13.12', state: 'completed' },
  },
};

function input(
  now: number,
  installPlans: InstallPlansReading | undefined,
  approvals: OperatorApprovalsConfig | null = config(),
): StepInput {
  return {
    now,
    options: { ...DEFAULT_LIFECYCLE_OPTIONS, operatorApprovals: approvals },
    startLeadMs: 0,
    minStartNoticeMs: 0,
    reading: upgraded,
    fleet: NO_FLEET_OBSTACLES,
    decisionWithdrawn: null,
    hooks: { pre: { state: 'none' }, post: { state: 'none' } },
    ...(installPlans ? { installPlans } : {}),
  };
}

const upgrading = (): UpgradeAttempt => ({
  ...newAttempt(7, 'prod-1', '4.13.10', '4.13.12', SLOT),
  state: 'upgrading',
  startRequestedAt: SLOT,
  startConfirmedAt: SLOT,
  runningAt: SLOT,
});
const read = (...plans: InstallPlanReading[]): InstallPlansReading => ({ state: 'read', plans });

describe('lifecycle.operatorApprovals option', () => {
  it('absent: no phase (null); seed-003 {name, namespace} entries and namespace/name read alike', () => {
    expect(parseLifecycleOptions({}, 'p').options.operatorApprovals).toBeNull();
    const { options, problems } = parseLifecycleOptions(
      {
        operatorApprovals: {
          include: ['openshift-gitops-operator', { name: 'cluster-logging', namespace: 'openshift-logging' }],
          exclude: ['openshift-operators/local-storage-operator'],
          timeout: '10m',
        },
      },
      'p',
    );
    expect(problems).toEqual([]);
    expect(options.operatorApprovals).toEqual({
      include: ['openshift-gitops-operator', 'openshift-logging/cluster-logging'],
      exclude: ['openshift-operators/local-storage-operator'],
      timeoutMs: 10 * M,
    });
    expect(parseLifecycleOptions({ operatorApprovals: { include: ['*'] } }, 'p').options.operatorApprovals?.timeoutMs).toBe(H);
  });

  it.each([
    [{ include: [] }, 'p.operatorApprovals.include', "list the operators whose InstallPlans are approved, or ['*'] for every operator"],
    [{ exclude: ['a'] }, 'p.operatorApprovals.include', "list the operators whose InstallPlans are approved, or ['*'] for every operator"],
    [{ include: ['*'], exclude: ['*'] }, 'p.operatorApprovals.exclude[0]', "'*' excludes every operator: remove operatorApprovals instead"],
    [
      { include: ['Bad Name'] },
      'p.operatorApprovals.include[0]',
      "'Bad Name' is not an operator name (lower-case letters, digits, '-' and '.'; optionally namespace/name)",
    ],
    [{ include: [3] }, 'p.operatorApprovals.include[0]', 'must be an operator name, namespace/name or {name, namespace}, got number'],
    [{ include: 'all' }, 'p.operatorApprovals.include', "must be a list of operator names, got 'all'"],
    [{ include: ['*'], timeout: '30s' }, 'p.operatorApprovals.timeout', 'must be from 1m to 720h, got 30s'],
    [{ include: ['*'], timout: '1h' }, 'p.operatorApprovals.timout', 'unknown key (known: include, exclude, timeout)'],
    [true, 'p.operatorApprovals', 'must be an object {include, exclude, timeout}, got boolean'],
  ])('refuses %j with a clear problem', (value, path, message) => {
    expect(parseLifecycleOptions({ operatorApprovals: value }, 'p').problems).toEqual([{ path, message }]);
  });
});

describe('selectPlan', () => {
  const gitops = plan('a', 'gitops');
  it.each([
    [{ include: ['*'], exclude: [] }, true],
    [{ include: ['gitops'], exclude: [] }, true],
    [{ include: ['gitops-pkg'], exclude: [] }, true], // the package name
    [{ include: ['openshift-operators/gitops'], exclude: [] }, true],
    [{ include: ['other-ns/gitops'], exclude: [] }, false],
    [{ include: ['logging'], exclude: [] }, false],
    [{ include: ['*'], exclude: ['gitops'] }, false], // exclude wins
    [{ include: ['gitops'], exclude: ['openshift-operators/gitops-pkg'] }, false],
  ])('%j → approve %s', (c, approve) => {
    expect(selectPlan(config(c), gitops).approve).toBe(approve);
  });

  it('a plan no Subscription names is approved only under include [*]', () => {
    const orphan = plan('o', 'x', { subscriptions: [] });
    expect(selectPlan(config({ include: ['x'] }), orphan)).toEqual({
      approve: false,
      why: 'no Subscription names it (only include: [*] approves it)',
    });
    expect(selectPlan(config(), orphan)).toEqual({ approve: true });
  });
});

describe('operator-approvals phase', () => {
  it('the platform upgrade completed: the phase begins (plans not read yet), nothing is approved in that step', () => {
    const r = stepAttempt(upgrading(), input(DONE, undefined));
    expect(r.attempt).toMatchObject({
      state: 'operator-approvals',
      providerDoneAt: DONE,
      operatorApprovals: { since: DONE, approved: [], left: [] },
    });
    expect(r.transitions.map((t) => t.message)).toEqual([
      'the provider reports the upgrade to 4.13.12 completed; approving the pending manual InstallPlans of the selected operators (timeout 1h)',
    ]);
    expect(r.effects).toEqual([]);
  });

  it('never approves before the platform upgrade completed (upgrading, plans readable)', () => {
    const running: ClusterReading = {
      ok: true,
      cluster: {
        ...(upgraded.ok ? upgraded.cluster : ({} as never)),
        version: '4.13.10',
        lastUpgrade: null,
        currentUpgrade: { version: '4.13.12', state: 'started' },
      },
    };
    const r = stepAttempt(upgrading(), { ...input(DONE, read(plan('p', 'gitops'))), reading: running });
    expect([r.attempt.state, r.effects]).toEqual(['upgrading', []]);
  });

  it('approves the selected pending manual plans (one effect each, own key), leaves the excluded ones with a note', () => {
    const phase = stepAttempt(upgrading(), input(DONE, undefined)).attempt;
    const plans = read(
      plan('p-gitops', 'gitops'),
      plan('p-storage', 'local-storage'),
      plan('p-auto', 'auto', { approval: 'Automatic', approved: true, phase: 'Complete' }),
      plan('p-manual-done', 'old', { approved: true, phase: 'Complete' }),
    );
    const r = stepAttempt(phase, input(DONE + M, plans));
    expect(r.effects).toEqual([
      {
        kind: 'approve-installplan',
        idempotencyKey: '7:approve:openshift-operators/p-gitops',
        namespace: 'openshift-operators',
        name: 'p-gitops',
      },
    ]);
    expect(r.transitions.map((t) => [t.from, t.to, t.message])).toEqual([
      [
        'operator-approvals',
        'operator-approvals',
        'approving InstallPlan openshift-operators/p-gitops (openshift-operators/gitops → gitops.v2)',
      ],
      [
        'operator-approvals',
        'operator-approvals',
        'leaving InstallPlan openshift-operators/p-storage (openshift-operators/local-storage → local-storage.v2) pending: excluded (operatorApprovals.exclude: local-storage)',
      ],
    ]);
    expect(r.attempt.operatorApprovals).toMatchObject({
      approved: [{ name: 'p-gitops', requestedAt: DONE + M, confirmedAt: null, completedAt: null }],
      left: [{ name: 'p-storage' }],
    });
    // the call returned; the next read shows it approved and Installing: no second effect, no note again
    const r2 = stepAttempt(
      r.attempt,
      input(DONE + 2 * M, read(plan('p-gitops', 'gitops', { approved: true, phase: 'Installing' }), plan('p-storage', 'local-storage'))),
    );
    expect([r2.attempt.state, r2.effects, r2.transitions]).toEqual(['operator-approvals', [], []]);
    expect(r2.attempt.operatorApprovals!.approved[0]!.confirmedAt).toBe(DONE + 2 * M);
    // Complete: on to post-checks (and, healthy, completed), naming what was approved and left
    const r3 = stepAttempt(
      r2.attempt,
      input(DONE + 5 * M, read(plan('p-gitops', 'gitops', { approved: true, phase: 'Complete' }), plan('p-storage', 'local-storage'))),
    );
    expect(r3.attempt.state).toBe('completed');
    expect(r3.transitions[0]).toMatchObject({
      from: 'operator-approvals',
      to: 'post-checks',
      message:
        'operator approvals done: approved openshift-operators/p-gitops (openshift-operators/gitops → gitops.v2); left pending: openshift-operators/p-storage (openshift-operators/local-storage → local-storage.v2): excluded (operatorApprovals.exclude: local-storage)',
    });
    expect(r3.attempt.operatorApprovals!.doneAt).toBe(DONE + 5 * M);
  });

  it('approves nothing while the organization is frozen or an exclusion covers the cluster; after that it goes on, and the timeout still runs', () => {
    const phase = stepAttempt(upgrading(), input(DONE, undefined)).attempt;
    const plans = read(plan('p-gitops', 'gitops'));
    for (const fleet of [
      { ...NO_FLEET_OBSTACLES, frozen: { reason: 'incident' } },
      { ...NO_FLEET_OBSTACLES, exclusion: 'maintenance exclusion "db move" until 2024-05-08T06:00Z' },
    ]) {
      const held = stepAttempt(phase, { ...input(DONE + M, plans), fleet });
      expect([held.attempt.state, held.effects, held.attempt.operatorApprovals?.approved]).toEqual(['operator-approvals', [], []]);
      const late = stepAttempt(held.attempt, { ...input(DONE + H + M, plans), fleet });
      expect([late.attempt.state, late.attempt.reason]).toEqual(['failed', 'OPERATOR_APPROVAL_TIMEOUT']);
    }
    const lifted = stepAttempt(
      stepAttempt(phase, { ...input(DONE + M, plans), fleet: { ...NO_FLEET_OBSTACLES, frozen: { reason: null } } }).attempt,
      input(DONE + 2 * M, plans),
    );
    expect(lifted.effects.map((e) => e.kind)).toEqual(['approve-installplan']);
  });

  it('a requested approval still read unapproved (crash or failed call) is asked again with the same key, never a new one', () => {
    const phase = stepAttempt(upgrading(), input(DONE, undefined)).attempt;
    const r = stepAttempt(phase, input(DONE + M, read(plan('p', 'gitops'))));
    const again = stepAttempt(r.attempt, input(DONE + 2 * M, read(plan('p', 'gitops'))));
    expect(again.effects).toEqual(r.effects);
    expect(again.transitions).toEqual([]); // no second "approving" note
    expect(again.attempt.operatorApprovals!.approved).toHaveLength(1);
    expect(again.attempt.operatorApprovals!.approved[0]!.requestedAt).toBe(DONE + M);
  });

  it('a plan OLM creates later (the next step of an operator channel) is approved too, then waited for', () => {
    const phase = stepAttempt(upgrading(), input(DONE, undefined)).attempt;
    const r = stepAttempt(phase, input(DONE + M, read(plan('p1', 'gitops'))));
    const r2 = stepAttempt(
      r.attempt,
      input(DONE + 5 * M, read(plan('p1', 'gitops', { approved: true, phase: 'Complete' }), plan('p2', 'gitops'))),
    );
    expect(r2.effects.map((e) => e.kind === 'approve-installplan' && e.name)).toEqual(['p2']);
    expect(r2.attempt.state).toBe('operator-approvals');
  });

  it('nothing pending: the phase ends at once', () => {
    const phase = stepAttempt(upgrading(), input(DONE, undefined)).attempt;
    const r = stepAttempt(phase, input(DONE + M, read()));
    expect(r.attempt.state).toBe('completed');
    expect(r.transitions[0]!.message).toBe('operator approvals done: approved no InstallPlan');
  });

  it('an approved plan that fails fails the attempt (OPERATOR_INSTALL_FAILED) with OLM’s message', () => {
    const phase = stepAttempt(upgrading(), input(DONE, undefined)).attempt;
    const r = stepAttempt(phase, input(DONE + M, read(plan('p', 'gitops'))));
    const failed = plan('p', 'gitops', { approved: true, phase: 'Failed', message: 'error validating existing CRs' });
    const r2 = stepAttempt(r.attempt, input(DONE + 3 * M, read(failed)));
    expect([r2.attempt.state, r2.attempt.reason, r2.attempt.message]).toEqual([
      'failed',
      'OPERATOR_INSTALL_FAILED',
      'InstallPlan openshift-operators/p failed after its approval: error validating existing CRs',
    ]);
  });

  it('past the timeout: approved plans not Complete (or an unreadable cluster) fail it OPERATOR_APPROVAL_TIMEOUT; new plans are no longer approved', () => {
    const phase = stepAttempt(upgrading(), input(DONE, undefined)).attempt;
    const r = stepAttempt(phase, input(DONE + M, read(plan('p', 'gitops'))));
    const installing = plan('p', 'gitops', { approved: true, phase: 'Installing' });
    expect(stepAttempt(r.attempt, input(DONE + H, read(installing))).attempt.state).toBe('operator-approvals');
    const late = stepAttempt(r.attempt, input(DONE + H + 1, read(installing, plan('p2', 'logging'))));
    expect([late.attempt.state, late.attempt.reason, late.effects]).toEqual(['failed', 'OPERATOR_APPROVAL_TIMEOUT', []]);
    expect(late.attempt.message).toMatch(
      /^not done 1h after the platform upgrade: openshift-operators\/p Installing, openshift-operators\/p2 not approved yet; /,
    );
    const unread = stepAttempt(r.attempt, input(DONE + H + 1, { state: 'unread', message: 'HTTP 403: forbidden' }));
    expect([unread.attempt.reason, unread.attempt.message]).toEqual([
      'OPERATOR_APPROVAL_TIMEOUT',
      'InstallPlans not read for the operator approvals within 1h: HTTP 403: forbidden',
    ]);
  });

  it('a provider without InstallPlans: the phase is entered and left in one step with the note', () => {
    const r = stepAttempt(upgrading(), input(DONE, { state: 'unsupported', message: 'not supported on OCM: no InstallPlans' }));
    expect(r.transitions.map((t) => [t.from, t.to, t.message])).toEqual([
      ['upgrading', 'operator-approvals', expect.stringContaining('approving the pending manual InstallPlans')],
      ['operator-approvals', 'post-checks', 'operator approvals skipped: not supported on OCM: no InstallPlans'],
      ['post-checks', 'completed', 'upgraded to 4.13.12'],
    ]);
    expect(r.effects).toEqual([]);
  });

  it('without the option the machine goes from the completed upgrade to post-checks as before', () => {
    const r = stepAttempt(upgrading(), input(DONE, read(plan('p', 'gitops')), null));
    expect(r.transitions.map((t) => t.to)).toEqual(['post-checks', 'completed']);
    expect(r.effects).toEqual([]);
    expect(r.attempt.operatorApprovals).toBeNull();
  });

  it('with a post-upgrade hook, the hook is asked for after the approvals', () => {
    const phase = stepAttempt(upgrading(), input(DONE, undefined)).attempt;
    const r = stepAttempt(phase, { ...input(DONE + M, read()), hooks: { pre: { state: 'none' }, post: { state: 'pending' } } });
    expect(r.attempt.state).toBe('post-hook');
    expect(r.effects).toEqual([{ kind: 'request-hook', stage: 'post-upgrade' }]);
  });

  it('its transitions are in the table', () => {
    expect(ALLOWED_TRANSITIONS.upgrading).toContain('operator-approvals');
    expect(ALLOWED_TRANSITIONS['operator-approvals']).toEqual(['operator-approvals', 'post-hook', 'post-checks', 'failed']);
  });
});

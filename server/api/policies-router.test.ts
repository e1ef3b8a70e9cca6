import { beforeEach, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify } from 'yaml';
import { openDatabase, type Db } from '@/db/open-database';
import { seedDemo } from '@/server/services/demo-seed-service';
import { listAudit } from '@/server/repositories/audit-repository';
import { AppError } from '@/server/services/app-error';
import { createCaller } from './root';
import { createContextInner } from './trpc';

const NOW = new Date('2026-11-22T12:00:00Z');
let db: Db;

function callerAs(role: 'viewer' | 'operator' | 'admin', name = `test-${role}`) {
  return createCaller(createContextInner({ db, fleetNow: () => NOW, realNow: () => NOW, actor: { name, role, via: 'system' } }));
}

/** Everything a policy write may touch, to prove a rejected write left nothing behind. */
function dumpPolicyState(): unknown {
  const q = (sql: string) => db.$client.prepare(sql).all();
  return {
    organizations: q('select * from organizations'),
    sectors: q('select * from sectors order by id'),
    blocked: q('select * from blocked_versions order by id'),
    clusters: q('select name, upgrade_policy, sector, policy_revision from clusters order by id'),
    workloads: q('select * from cluster_workloads order by cluster_id, workload'),
    revisions: q('select * from policy_revisions order by id'),
    audit: q('select * from audit_log order by id'),
    settings: q('select * from settings order by key'),
  };
}

async function rejection(p: Promise<unknown>): Promise<{ code: string; problems: { path: string; message: string }[] }> {
  try {
    await p;
  } catch (err) {
    const e = err as { code?: string; cause?: unknown };
    const cause = e.cause instanceof AppError ? e.cause : undefined;
    return { code: e.code ?? 'UNKNOWN', problems: cause?.problems ?? [] };
  }
  throw new Error('expected the call to fail');
}

function settingsOf(org: Awaited<ReturnType<ReturnType<typeof callerAs>['policies']['organization']>>) {
  return {
    sectors: org.sectors.map((s) => ({ name: s.name, maxParallelUpgrades: s.maxParallelUpgrades, dependencies: s.dependencies })),
    blockedVersions: org.blockedVersions.map((b) => ({ pattern: b.pattern, reason: b.reason })),
    upgradePolicyAllowedWorkloads: org.upgradePolicyAllowedWorkloads,
    upgradePolicyAllowedMutexes: org.upgradePolicyAllowedMutexes,
  };
}

beforeEach(async () => {
  db = openDatabase(':memory:');
  await seedDemo(db, NOW);
});

describe('policies router: organization edits', () => {
  it('a save may say why: the reason ends the revision summary the history and Activity show', async () => {
    const op = callerAs('operator', 'alice');
    const org = await op.policies.organization();
    const settings = settingsOf(org);
    settings.blockedVersions.push({ pattern: '^4\\.13\\.98$', reason: 'etcd' });
    await op.policies.updateOrganization({ expectedRevision: org.revision, organization: settings, reason: '  CVE triage  ' });
    const cluster = (await op.policies.clusterPolicies()).find((c) => c.policy !== null)!;
    await op.policies.updateClusterPolicy({
      name: cluster.name,
      expectedRevision: cluster.revision,
      policy: { ...cluster.policy!, conditions: { ...cluster.policy!.conditions, soakDays: 30 } },
      reason: 'waits for the app team',
    });
    const summaries = (await op.policies.history({})).revisions.map((r) => r.summary);
    expect(summaries[0]).toMatch(/soakDays.*: waits for the app team$/);
    expect(summaries[1]).toMatch(/: CVE triage$/);
  });

  it('reads the organization with sectors, blocked versions with reasons and allow-lists', async () => {
    const org = await callerAs('viewer').policies.organization();
    expect(org.revision).toBe(1);
    expect(org.sectors.length).toBeGreaterThan(1);
    expect(org.sectors.some((s) => s.dependencies.length > 0)).toBe(true);
    expect(org.blockedVersions.every((b) => b.reason !== '' && b.createdBy === 'demo-seed')).toBe(true);
    expect(org.managedClusterCount).toBeGreaterThan(0);
    expect(org.workloadsInUse.length).toBeGreaterThan(0);
  });

  it('an update bumps the revision and writes a revision with its diff and an audit row', async () => {
    const op = callerAs('operator', 'alice');
    const org = await op.policies.organization();
    const settings = settingsOf(org);
    settings.sectors.push({ name: 'canary', maxParallelUpgrades: '1', dependencies: [] });
    settings.blockedVersions.push({ pattern: '^4\\.13\\.99$', reason: 'known etcd regression' });
    const result = await op.policies.updateOrganization({ expectedRevision: org.revision, organization: settings });
    expect(result.changed).toBe(true);
    expect(result.revision).toBe(2);
    expect(result.organization.revision).toBe(2);
    const blocked = result.organization.blockedVersions.find((b) => b.pattern === '^4\\.13\\.99$');
    expect(blocked).toMatchObject({ reason: 'known etcd regression', createdBy: 'alice' });
    // patterns kept keep their author
    expect(result.organization.blockedVersions.filter((b) => b.createdBy === 'demo-seed')).toHaveLength(org.blockedVersions.length);

    const history = await op.policies.history({ scope: 'organization' });
    expect(history.total).toBe(1);
    const rev = history.revisions[0]!;
    expect(rev).toMatchObject({ id: result.revisionId, actor: 'alice', revision: 2, scope: 'organization', at: NOW.toISOString() });
    expect(rev.summary).toContain('added sector canary');
    expect(rev.changes.map((c) => `${c.kind} ${c.path}`)).toEqual([
      `added sectors[${org.sectors.length}]`,
      `added blockedVersions[${org.blockedVersions.length}]`,
    ]);

    const audit = await listAudit(db, { filter: { action: 'policy.' } });
    expect(audit.total).toBe(1);
    expect(audit.rows[0]).toMatchObject({ actor: 'alice', action: 'policy.organization.update', target: `organization:${org.name}` });

    // the same settings again: nothing to write
    const again = await op.policies.updateOrganization({ expectedRevision: 2, organization: settings });
    expect(again).toMatchObject({ changed: false, revision: 2, revisionId: null });
    expect((await op.policies.history({})).total).toBe(1);
  });

  it('rejects an edit that leaves the fleet invalid, with paths, and changes nothing', async () => {
    const op = callerAs('operator');
    const org = await op.policies.organization();
    const used = org.sectors.find((s) => s.clusterCount > 0)!;
    const settings = settingsOf(org);
    // drop a sector that clusters use (and that others depend on), add a bad regex and limit
    settings.sectors = settings.sectors.filter((s) => s.name !== used.name).map((s) => ({ ...s, dependencies: s.dependencies }));
    settings.blockedVersions.push({ pattern: '(?<=x)4', reason: 'lookbehind' });
    settings.sectors.push({ name: 'broken', maxParallelUpgrades: '0%', dependencies: [] });
    const before = dumpPolicyState();
    const err = await rejection(op.policies.updateOrganization({ expectedRevision: org.revision, organization: settings }));
    expect(err.code).toBe('BAD_REQUEST');
    const paths = err.problems.map((p) => p.path);
    expect(paths).toContain(`organization.blockedVersions[${org.blockedVersions.length}].pattern`);
    expect(paths).toContain(`organization.sectors[${settings.sectors.length - 1}].maxParallelUpgrades`);
    expect(paths.some((p) => /^clusters\[name=[^\]]+\]\.upgradePolicy\.conditions\.sector$/.test(p))).toBe(true);
    const sectorProblem = err.problems.find((p) => p.path.endsWith('.conditions.sector')) as { cluster?: string; field?: string };
    expect(sectorProblem.field).toBe('conditions.sector');
    expect(sectorProblem.cluster).toBeTruthy();
    expect(dumpPolicyState()).toEqual(before);
  });

  it('a stale expectedRevision is a conflict and changes nothing (two editors)', async () => {
    const alice = callerAs('operator', 'alice');
    const bob = callerAs('operator', 'bob');
    const seenByAlice = await alice.policies.organization();
    const seenByBob = await bob.policies.organization();
    const a = settingsOf(seenByAlice);
    a.upgradePolicyAllowedMutexes = [...(a.upgradePolicyAllowedMutexes ?? []), 'alice-mutex'];
    await alice.policies.updateOrganization({ expectedRevision: seenByAlice.revision, organization: a });
    const afterAlice = dumpPolicyState();
    const b = settingsOf(seenByBob);
    b.blockedVersions = [];
    const err = await rejection(bob.policies.updateOrganization({ expectedRevision: seenByBob.revision, organization: b }));
    expect(err.code).toBe('CONFLICT');
    expect(dumpPolicyState()).toEqual(afterAlice);
    // cluster policies too
    const cp = await alice.policies.clusterPolicy({ name: 'quay-prod-blue-01' });
    const policy = { ...cp.policy!, conditions: { ...cp.policy!.conditions, soakDays: 30 } };
    await alice.policies.updateClusterPolicy({ name: cp.name, expectedRevision: cp.revision, policy });
    const stale = await rejection(bob.policies.updateClusterPolicy({ name: cp.name, expectedRevision: cp.revision, policy: null }));
    expect(stale.code).toBe('CONFLICT');
    expect((await bob.policies.clusterPolicy({ name: cp.name })).policy?.conditions?.soakDays).toBe(30);
  });

  it('freeze and blocked versions: operator only, with reasons, audited', async () => {
    const viewer = callerAs('viewer');
    expect((await rejection(viewer.policies.setFreeze({ frozen: true, reason: 'x' }))).code).toBe('FORBIDDEN');
    const op = callerAs('operator', 'carol');
    expect((await rejection(op.policies.setFreeze({ frozen: true, reason: ' ' }))).problems[0]?.path).toBe('reason');
    const frozen = await op.policies.setFreeze({ frozen: true, reason: 'holiday change freeze' });
    expect(frozen.organization).toMatchObject({ frozen: true, frozenReason: 'holiday change freeze', revision: 2 });
    const bad = await rejection(op.policies.addBlockedVersion({ pattern: '(\\d)\\1', reason: 'backreference' }));
    expect(bad.code).toBe('BAD_REQUEST');
    expect(bad.problems.map((p) => p.path)).toEqual(['pattern']);
    const added = await op.policies.addBlockedVersion({ pattern: '^4\\.13\\.50$', reason: 'OCPBUGS-1' });
    expect(added.organization.revision).toBe(3);
    expect((await rejection(op.policies.addBlockedVersion({ pattern: '^4\\.13\\.50$', reason: 'again' }))).code).toBe('CONFLICT');
    const removed = await op.policies.removeBlockedVersion({ pattern: '^4\\.13\\.50$', reason: 'fixed in .51' });
    expect(removed.organization.blockedVersions.some((b) => b.pattern === '^4\\.13\\.50$')).toBe(false);
    expect((await rejection(op.policies.removeBlockedVersion({ pattern: 'nope', reason: '' }))).code).toBe('NOT_FOUND');
    const actions = (await listAudit(db, { filter: { actor: 'carol' } })).rows.map((r) => r.action);
    expect(actions).toEqual(['policy.blocked-version.remove', 'policy.blocked-version.add', 'policy.freeze']);
    expect((await op.policies.history({ scope: 'organization' })).total).toBe(3);
  });
});

describe('policies router: cluster policies, revert, validation, impact', () => {
  it('updates a cluster policy (workload rows follow) and reverts it', async () => {
    const op = callerAs('operator', 'dave');
    const cp = await op.policies.clusterPolicy({ name: 'quay-prod-blue-01' });
    expect(cp.managed).toBe(true);
    const original = cp.policy!;
    const changed = {
      ...original,
      workloads: [...original.workloads, 'quay-mirror'],
      conditions: { ...original.conditions, soakDays: 21 },
    };
    const org = await op.policies.organization();
    if (org.upgradePolicyAllowedWorkloads && !org.upgradePolicyAllowedWorkloads.includes('quay-mirror')) {
      // the allow-list rejects it first, at the workload's own path
      const err = await rejection(op.policies.updateClusterPolicy({ name: cp.name, expectedRevision: cp.revision, policy: changed }));
      expect(err.problems.map((p) => p.path)).toEqual([`policy.workloads[${original.workloads.length}]`]);
      const s = settingsOf(org);
      s.upgradePolicyAllowedWorkloads = [...org.upgradePolicyAllowedWorkloads, 'quay-mirror'];
      await op.policies.updateOrganization({ expectedRevision: org.revision, organization: s });
    }
    const updated = await op.policies.updateClusterPolicy({ name: cp.name, expectedRevision: cp.revision, policy: changed });
    expect(updated.cluster.revision).toBe(cp.revision + 1);
    expect(updated.cluster.policy).toEqual(changed);
    const rows = db.$client
      .prepare(
        "select workload from cluster_workloads w join clusters c on c.id = w.cluster_id where c.name = 'quay-prod-blue-01' order by workload",
      )
      .all() as { workload: string }[];
    expect(rows.map((r) => r.workload)).toEqual([...changed.workloads].sort());
    const listed = await callerAs('viewer').clusters.list({ filter: { workload: 'quay-mirror' } });
    expect(listed.items.map((c) => c.name)).toEqual(['quay-prod-blue-01']);

    const history = await op.policies.history({ scope: 'cluster', subject: cp.name });
    expect(history.revisions[0]!.changes.map((c) => c.path)).toEqual([`workloads[${original.workloads.length}]`, 'conditions.soakDays']);
    const stale = await rejection(op.policies.revert({ revisionId: updated.revisionId!, expectedRevision: cp.revision }));
    expect(stale.code).toBe('CONFLICT');
    const reverted = await op.policies.revert({ revisionId: updated.revisionId!, expectedRevision: updated.cluster.revision });
    expect(reverted).toMatchObject({ scope: 'cluster', subject: cp.name, revision: cp.revision + 2 });
    const back = await op.policies.clusterPolicy({ name: cp.name });
    expect(back.policy).toEqual(original);
    // the revert names the revision as the history numbers it (rev N of this cluster), not a row id
    const afterRevert = (await op.policies.history({ subject: cp.name })).revisions;
    expect(afterRevert[0]!.summary).toMatch(new RegExp(`^reverted rev ${updated.cluster.revision} \\(`));
    expect(afterRevert.find((r) => r.revision === updated.cluster.revision)).toBeDefined();
    // Activity lists the change once: the revision, not also its audit row
    const activity = await op.activity.changes({ cluster: cp.name, offset: 0, limit: 50 });
    expect(activity.rows.filter((r) => r.kind === 'audit' && r.action.startsWith('policy.'))).toEqual([]);
    expect(activity.rows.filter((r) => r.kind === 'policy')).toHaveLength(2);
    expect(activity.total).toBe(activity.rows.length);

    // unmanage, then revert that too
    const off = await op.policies.updateClusterPolicy({ name: cp.name, expectedRevision: back.revision, policy: null });
    expect(off.cluster.managed).toBe(false);
    await op.policies.revert({ revisionId: off.revisionId!, expectedRevision: off.cluster.revision });
    expect((await op.policies.clusterPolicy({ name: cp.name })).policy).toEqual(original);
  });

  it('a cluster policy may set a target and a cap: stored, explained, and a bad one refused at its path', async () => {
    const op = callerAs('operator');
    const cp = await op.policies.clusterPolicy({ name: 'quay-prod-blue-01' });
    const capped = { ...cp.policy!, conditions: { ...cp.policy!.conditions, targetVersion: '4.13.*', maxVersion: '4.13.41' } };
    await op.policies.updateClusterPolicy({ name: cp.name, expectedRevision: cp.revision, policy: capped });
    const stored = await op.policies.clusterPolicy({ name: cp.name });
    expect(stored.policy!.conditions).toMatchObject({ targetVersion: '4.13.*', maxVersion: '4.13.41' });
    const bad = { ...capped, conditions: { ...capped.conditions, maxVersion: '4.13' } };
    const err = await rejection(op.policies.updateClusterPolicy({ name: cp.name, expectedRevision: stored.revision, policy: bad }));
    expect(err).toMatchObject({
      code: 'BAD_REQUEST',
      problems: [{ path: 'policy.conditions.maxVersion', message: "'4.13' is neither a release (4.16.3) nor a minor (4.16.*)" }],
    });
    expect((await op.policies.clusterPolicy({ name: cp.name })).revision).toBe(stored.revision);
  });

  it('the organization and its sectors may set a target, a cap and a limit on upgrades at once: stored, planned, exported, kept when a client leaves them out', async () => {
    const op = callerAs('operator');
    const org = await op.policies.organization();
    const settings = settingsOf(org);
    const withBounds = {
      ...settings,
      maxVersion: '4.13.*',
      sectors: settings.sectors.map((s, i) => (i === 0 ? { ...s, maxConcurrentUpgrades: '1', targetVersion: '4.13.42' } : s)),
    };
    const saved = await op.policies.updateOrganization({ expectedRevision: org.revision, organization: withBounds });
    expect(saved.organization).toMatchObject({ maxVersion: '4.13.*', targetVersion: null });
    expect(saved.organization.sectors[0]).toMatchObject({ maxConcurrentUpgrades: '1', targetVersion: '4.13.42', maxVersion: null });
    // the engine reads them: no decision takes a version past the sector's target
    const first = saved.organization.sectors[0]!.name;
    const members = new Set(
      (db.$client.prepare('select name from clusters where sector = ?').all(first) as { name: string }[]).map((r) => r.name),
    );
    const plan = await op.plans.evaluate({});
    const decided = plan.decisions.filter((d) => members.has(d.cluster));
    expect(decided.length).toBeGreaterThan(0);
    expect(decided.filter((d) => d.action === 'upgrade' && d.version !== '4.13.42')).toEqual([]);
    expect(decided.filter((d) => d.action === 'upgrade').length).toBeLessThanOrEqual(1);
    // a client that does not know the new settings leaves them as they are
    const again = await op.policies.updateOrganization({ expectedRevision: saved.revision, organization: settingsOf(saved.organization) });
    expect(again.organization).toMatchObject({ maxVersion: '4.13.*' });
    expect(again.organization.sectors[0]).toMatchObject({ maxConcurrentUpgrades: '1', targetVersion: '4.13.42' });
    // the organization file carries them, and a bad one is refused at its path
    const exported = parseYaml((await op.policies.exportOrganization()).yaml) as {
      maxVersion?: string;
      sectors: Record<string, unknown>[];
    };
    expect(exported.maxVersion).toBe('4.13.*');
    expect(exported.sectors[0]).toMatchObject({ maxConcurrentUpgrades: '1', targetVersion: '4.13.42' });
    const err = await rejection(
      op.policies.updateOrganization({ expectedRevision: again.revision, organization: { ...withBounds, targetVersion: 'latest' } }),
    );
    expect(err).toMatchObject({ code: 'BAD_REQUEST', problems: [{ path: 'organization.targetVersion' }] });
  });

  it('a sector may declare approval gates and a notBefore: stored, exported, kept when a client leaves them out, refused at their path when bad', async () => {
    const op = callerAs('operator');
    const org = await op.policies.organization();
    const settings = settingsOf(org);
    const gated = {
      ...settings,
      sectors: settings.sectors.map((s, i) =>
        i === 1 ? { ...s, approval: { before: true, after: true }, notBefore: '2026-11-29T20:00 Europe/Zurich' } : s,
      ),
    };
    const saved = await op.policies.updateOrganization({ expectedRevision: org.revision, organization: gated });
    expect(saved.organization.sectors[1]).toMatchObject({
      approval: { before: true, after: true },
      notBefore: '2026-11-29T20:00 Europe/Zurich',
    });
    expect(saved.organization.sectors[0]).toMatchObject({ approval: null, notBefore: null });
    const again = await op.policies.updateOrganization({ expectedRevision: saved.revision, organization: settingsOf(saved.organization) });
    expect(again.organization.sectors[1]).toMatchObject({ approval: { before: true, after: true } });
    const exported = parseYaml((await op.policies.exportOrganization()).yaml) as { sectors: Record<string, unknown>[] };
    expect(exported.sectors[1]).toMatchObject({ approval: { before: true, after: true }, notBefore: '2026-11-29T20:00 Europe/Zurich' });
    expect(exported.sectors[0]).not.toHaveProperty('approval');
    const bad = {
      ...gated,
      sectors: gated.sectors.map((s, i) => (i === 1 ? { ...s, notBefore: 'Sunday 20:00' } : s)),
    };
    const err = await rejection(op.policies.updateOrganization({ expectedRevision: again.revision, organization: bad }));
    expect(err).toMatchObject({ code: 'BAD_REQUEST', problems: [{ path: 'organization.sectors[1].notBefore' }] });
    // the organization file: imported as written, a misspelt gate key refused at its path with nothing written
    const file = parseYaml((await op.policies.exportOrganization()).yaml) as { sectors: Record<string, unknown>[] };
    file.sectors[0]!.approval = { after: true };
    await op.policies.importOrganization({ yaml: stringify(file) });
    expect((await op.policies.organization()).sectors[0]).toMatchObject({ approval: { before: false, after: true } });
    file.sectors[0]!.approval = { afer: true };
    const before = dumpPolicyState();
    const typo = await rejection(op.policies.importOrganization({ yaml: stringify(file) }));
    expect(typo.problems).toEqual([
      expect.objectContaining({ path: 'sectors[0].approval.afer', message: "unknown key 'afer': did you mean 'after'?" }),
    ]);
    expect(dumpPolicyState()).toEqual(before);
  });

  it('reverts an organization revision, refusing when the result would be invalid', async () => {
    const op = callerAs('operator');
    const org = await op.policies.organization();
    const s = settingsOf(org);
    s.sectors.push({ name: 'canary', maxParallelUpgrades: null, dependencies: [] });
    const added = await op.policies.updateOrganization({ expectedRevision: org.revision, organization: s });
    // a cluster moves into the new sector: reverting the sector's addition must now fail
    const cp = await op.policies.clusterPolicy({ name: 'quay-prod-blue-01' });
    await op.policies.updateClusterPolicy({
      name: cp.name,
      expectedRevision: cp.revision,
      policy: { ...cp.policy!, conditions: { ...cp.policy!.conditions, sector: 'canary' } },
    });
    const before = dumpPolicyState();
    const err = await rejection(op.policies.revert({ revisionId: added.revisionId!, expectedRevision: added.revision }));
    expect(err.code).toBe('BAD_REQUEST');
    expect(err.problems.map((p) => p.path)).toEqual(['clusters[name=quay-prod-blue-01].upgradePolicy.conditions.sector']);
    expect(dumpPolicyState()).toEqual(before);
    // move it back, then the revert goes through
    const now = await op.policies.clusterPolicy({ name: cp.name });
    await op.policies.updateClusterPolicy({ name: cp.name, expectedRevision: now.revision, policy: cp.policy });
    const ok = await op.policies.revert({ revisionId: added.revisionId!, expectedRevision: added.revision });
    expect(ok.revision).toBe(added.revision + 1);
    expect((await op.policies.organization()).sectors.map((x) => x.name)).toEqual(org.sectors.map((x) => x.name));
  });

  it('validateDraft reports problems at draft paths and lint warnings when valid', async () => {
    const viewer = callerAs('viewer');
    const cp = await viewer.policies.clusterPolicy({ name: 'quay-prod-blue-01' });
    const bad = await viewer.policies.validateDraft({
      clusters: [
        { name: 'nope-cluster', policy: null },
        { name: cp.name, policy: { ...cp.policy!, schedule: '0 25 * * *', conditions: { ...cp.policy!.conditions, soakDays: -2 } } },
      ],
    });
    expect(bad.ok).toBe(false);
    expect(bad.problems.map((p) => p.path).sort()).toEqual([
      'clusters[0].name',
      'clusters[1].policy.conditions.soakDays',
      'clusters[1].policy.schedule',
    ]);
    const good = await viewer.policies.validateDraft({
      clusters: [{ name: cp.name, policy: { ...cp.policy!, conditions: { ...cp.policy!.conditions, mutexes: [] } } }],
    });
    expect(good).toMatchObject({ ok: true, problems: [] });
    expect(Array.isArray(good.warnings)).toBe(true);
  });

  it('validateDraft warns of a target in a minor no stored update graph holds, naming the stored channels', async () => {
    const viewer = callerAs('viewer');
    const cp = await viewer.policies.clusterPolicy({ name: 'quay-prod-blue-01' });
    const draft = (targetVersion: string) => ({
      clusters: [{ name: cp.name, policy: { ...cp.policy!, conditions: { ...cp.policy!.conditions, targetVersion } } }],
    });
    const far = await viewer.policies.validateDraft(draft('4.19.*'));
    expect(far.ok).toBe(true);
    const warning = far.warnings.find((w) => w.path === 'clusters[0].policy.conditions.targetVersion');
    // the demo stores stable-4.13 and a 4.6–4.9 union: 4.19 is in neither
    expect(warning?.message).toMatch(
      /^targetVersion 4\.19\.\* is in minor 4\.19, which no stored update graph holds \(minors 4\.6–4\.13\): .*NO_ROUTE.*; channels stored: .*stable-4\.13.* and \d+ more$/,
    );
    const near = await viewer.policies.validateDraft(draft('4.13.*'));
    expect(near.warnings.filter((w) => w.path.endsWith('targetVersion'))).toEqual([]);
    // nothing stored: nothing to check against
    db.$client.prepare('delete from update_graphs').run();
    const none = await viewer.policies.validateDraft(draft('4.19.*'));
    expect(none.warnings.filter((w) => w.path.endsWith('targetVersion'))).toEqual([]);
  });

  it('a misspelt key is refused with a suggestion (validateDraft and save), changing nothing; versionGateApprovals is known', async () => {
    const op = callerAs('operator');
    const cp = await op.policies.clusterPolicy({ name: 'quay-prod-blue-01' });
    const { soakDays: _soak, ...conditions } = cp.policy!.conditions ?? {};
    const typo = { ...cp.policy!, conditions: { ...conditions, extra: { soakdays: 2 } } };
    const draft = await op.policies.validateDraft({ clusters: [{ name: cp.name, policy: typo }] });
    expect(draft.ok).toBe(false);
    expect(draft.problems).toEqual([
      { path: 'clusters[0].policy.conditions.soakdays', message: "unknown key 'soakdays': did you mean 'soakDays'?" },
    ]);
    const before = dumpPolicyState();
    const err = await rejection(op.policies.updateClusterPolicy({ name: cp.name, expectedRevision: cp.revision, policy: typo }));
    expect(err).toEqual({
      code: 'BAD_REQUEST',
      problems: [{ path: 'policy.conditions.soakdays', message: "unknown key 'soakdays': did you mean 'soakDays'?" }],
    });
    expect(dumpPolicyState()).toEqual(before);

    const gated = { ...cp.policy!, extra: { versionGateApprovals: ['api.openshift.com/gate-ocp'] } };
    expect(await op.policies.validateDraft({ clusters: [{ name: cp.name, policy: gated }] })).toMatchObject({ ok: true });
    const saved = await op.policies.updateClusterPolicy({ name: cp.name, expectedRevision: cp.revision, policy: gated });
    expect(saved.cluster.policy).toEqual(gated);
  });

  it('lifecycle.operatorApprovals: edited through the editor API, validated at its path (nothing written when bad), exported', async () => {
    const op = callerAs('operator');
    const cp = await op.policies.clusterPolicy({ name: 'telemeter-stage-01' });
    expect(cp.policy!.lifecycle).toBeUndefined();
    const bad = { ...cp.policy!, lifecycle: { operatorApprovals: { include: ['*'], exclude: ['*'], timeout: 'soon' } } };
    const draft = await op.policies.validateDraft({ clusters: [{ name: cp.name, policy: bad }] });
    // the editor shows each at its field (lifecycle is edited in the YAML pane)
    expect(draft.problems.map((p) => [p.field, p.message])).toEqual([
      ['lifecycle.operatorApprovals.exclude[0]', "'*' excludes every operator: remove operatorApprovals instead"],
      ['lifecycle.operatorApprovals.timeout', "must be a duration such as 1h, 90m or 1h30m (or whole seconds), got 'soon'"],
    ]);
    const before = dumpPolicyState();
    const err = await rejection(op.policies.updateClusterPolicy({ name: cp.name, expectedRevision: cp.revision, policy: bad }));
    expect(err.problems.map((p) => p.path)).toEqual([
      'policy.lifecycle.operatorApprovals.exclude[0]',
      'policy.lifecycle.operatorApprovals.timeout',
    ]);
    expect(dumpPolicyState()).toEqual(before);
    const good = { ...cp.policy!, lifecycle: { operatorApprovals: { include: ['openshift-gitops-operator'], timeout: '30m' } } };
    const saved = await op.policies.updateClusterPolicy({ name: cp.name, expectedRevision: cp.revision, policy: good });
    expect(saved.cluster.policy).toEqual(good);
    expect((await op.policies.exportCluster({ name: cp.name })).yaml).toMatch(
      /operatorApprovals:\n\s+include:\n\s+- openshift-gitops-operator\n\s+timeout: 30m/,
    );
  });

  it('previewForecastImpact: blocking the fleet target shows who no longer reaches it in the next 30 days', async () => {
    const viewer = callerAs('viewer');
    const none = await viewer.policies.previewForecastImpact({});
    expect(none).toMatchObject({ ok: true, horizonDays: 30 });
    expect(none.diff!.changes).toEqual([]);
    const target = none.diff!.targetVersion!;
    expect(target).toMatch(/^4\.\d+\.\d+$/);

    const org = await viewer.policies.organization();
    const settings = settingsOf(org);
    settings.blockedVersions.push({ pattern: `^${target.replaceAll('.', '\\.')}$`, reason: 'regression' });
    const blocked = await viewer.policies.previewForecastImpact({ organization: settings });
    expect(blocked.ok).toBe(true);
    const lost = blocked.diff!.changes.filter((c) => c.kind === 'no-longer');
    expect(lost.length).toBeGreaterThan(0);
    expect(blocked.diff!.counts['no-longer']).toBe(lost.length);
    for (const c of lost) {
      expect(c.before.reachesTargetAt).not.toBeNull();
      expect(c.after.reachesTargetAt).toBeNull();
      expect(c.after.upgrades.map((u) => u.version)).not.toContain(target);
    }
    // nothing was written
    expect((await viewer.policies.organization()).revision).toBe(org.revision);

    const invalid = await viewer.policies.previewForecastImpact({ clusters: [{ name: 'no-such-cluster', policy: null }] });
    expect(invalid).toMatchObject({ ok: false, diff: null });
  });

  it('previewImpact lists the clusters whose decision changes', async () => {
    const viewer = callerAs('viewer');
    const plan = await viewer.plans.evaluate();
    const waiting = plan.decisions.find((d) => d.reason === 'OUTSIDE_WINDOW' || d.reason === 'NOT_SOAKED');
    expect(waiting).toBeDefined();
    const cp = await viewer.policies.clusterPolicy({ name: waiting!.cluster });
    const none = await viewer.policies.previewImpact({});
    expect(none).toMatchObject({ ok: true, changes: [], unchanged: plan.decisions.length });
    // always in the window, no soak: it now gets something different
    const draft = {
      clusters: [
        { name: cp.name, policy: { ...cp.policy!, schedule: '* * * * *', conditions: { ...cp.policy!.conditions, soakDays: 0 } } },
      ],
    };
    const impact = await viewer.policies.previewImpact(draft);
    expect(impact.ok).toBe(true);
    const change = impact.changes.find((c) => c.cluster === cp.name);
    expect(change?.before).toMatchObject({ action: 'skip', reason: waiting!.reason });
    expect(change?.after).not.toEqual(change?.before);
    // a draft that blocks every version stops every planned upgrade
    const org = await viewer.policies.organization();
    const blockAll = settingsOf(org);
    blockAll.blockedVersions.push({ pattern: '.', reason: 'stop everything' });
    const stopped = await viewer.policies.previewImpact({ organization: blockAll });
    const upgrades = plan.decisions.filter((d) => d.action === 'upgrade').map((d) => d.cluster);
    expect(
      stopped.changes
        .filter((c) => c.before?.action === 'upgrade')
        .map((c) => c.cluster)
        .sort(),
    ).toEqual([...upgrades].sort());
    expect(stopped.changes.every((c) => c.after?.action !== 'upgrade')).toBe(true);
    // nothing was written
    expect((await viewer.policies.history({})).total).toBe(0);
  });
});

describe('policies router: organization file import/export', () => {
  it('export → import is a no-op; an edited file imports as per-cluster revisions and exports back', async () => {
    const op = callerAs('operator', 'erin');
    const exported = await op.policies.exportOrganization();
    expect(exported.yaml).toContain('$schema: /openshift/openshift-cluster-manager-1.yml');
    const same = await op.policies.importOrganization({ yaml: exported.yaml });
    expect(same).toMatchObject({ organizationChanged: false, changedClusters: [] });
    expect((await op.policies.history({})).total).toBe(0);
    expect((await listAudit(db)).total).toBe(0);

    const doc = parseYaml(exported.yaml) as {
      upgradePolicyClusters: { name: string; upgradePolicy: { conditions: { soakDays?: number } } }[];
      [k: string]: unknown;
    };
    const first = doc.upgradePolicyClusters[0]!;
    first.upgradePolicy.conditions.soakDays = 42;
    const dropped = doc.upgradePolicyClusters.pop()!;
    doc.description = 'kept across import and export';
    doc.blockedVersions = [...((doc.blockedVersions as string[] | undefined) ?? []), '^4\\.99\\.'];
    const edited = stringify(doc);

    const before = dumpPolicyState();
    const dry = await op.policies.importOrganization({ yaml: edited, dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, organizationChanged: true });
    expect([...dry.changedClusters].sort()).toEqual([first.name, dropped.name].sort());
    expect(dumpPolicyState()).toEqual(before);

    const done = await op.policies.importOrganization({ yaml: edited });
    expect(done.revision).toBe(2);
    expect((await op.policies.clusterPolicy({ name: first.name })).policy?.conditions?.soakDays).toBe(42);
    expect((await op.policies.clusterPolicy({ name: dropped.name })).managed).toBe(false);
    const history = await op.policies.history({});
    expect(history.total).toBe(3);
    expect(history.revisions.every((r) => r.actor === 'erin' && r.summary.startsWith('imported organization file'))).toBe(true);
    expect((await listAudit(db, { filter: { action: 'policy.import.file' } })).total).toBe(1);

    const back: unknown = parseYaml((await op.policies.exportOrganization()).yaml);
    expect(back).toEqual(parseYaml(edited));
    const cluster = await op.policies.exportCluster({ name: first.name });
    expect(parseYaml(cluster.yaml)).toEqual({ $schema: '/openshift/cluster-1.yml', name: first.name, upgradePolicy: first.upgradePolicy });
  });

  it('rejects a file that does not fit the fleet, at the file paths, writing nothing', async () => {
    const op = callerAs('operator');
    const doc = parseYaml((await op.policies.exportOrganization()).yaml) as {
      upgradePolicyClusters: { name: string; upgradePolicy: { conditions: Record<string, unknown> } }[];
      sectors: unknown[];
    };
    const workload = (doc.upgradePolicyClusters[0]!.upgradePolicy as unknown as { workloads: string[] }).workloads[0]!;
    doc.upgradePolicyClusters.push({
      name: 'not-in-fleet',
      upgradePolicy: { workloads: [workload], schedule: '0 1 * * *', conditions: {} } as never,
    });
    doc.upgradePolicyClusters[3]!.upgradePolicy.conditions.soakDays = -1;
    const before = dumpPolicyState();
    const err = await rejection(op.policies.importOrganization({ yaml: stringify(doc) }));
    expect(err.code).toBe('BAD_REQUEST');
    const n = doc.upgradePolicyClusters.length - 1;
    expect(err.problems.map((p) => p.path)).toContain('upgradePolicyClusters[3].upgradePolicy.conditions.soakDays');
    expect(dumpPolicyState()).toEqual(before);
    // the unknown cluster is reported once the file itself is valid
    doc.upgradePolicyClusters[3]!.upgradePolicy.conditions.soakDays = 1;
    const err2 = await rejection(op.policies.importOrganization({ yaml: stringify(doc) }));
    expect(err2.problems.map((p) => p.path)).toEqual([`upgradePolicyClusters[${n}].name`]);
    expect(dumpPolicyState()).toEqual(before);
  });
});

describe('plans router', () => {
  it('evaluates the stored fleet without writing, explains a cluster, lints', async () => {
    const viewer = callerAs('viewer');
    const before = db.$client.prepare('select count(*) n from decisions').get();
    const plan = await viewer.plans.evaluate();
    const managed = (await viewer.policies.organization()).managedClusterCount;
    expect(plan.decisions).toHaveLength(managed);
    expect(plan.counts.upgrade + plan.counts.skip + plan.counts.cancel).toBe(managed);
    expect(plan.now).toBe('2026-11-22T12:00:00Z');
    expect(db.$client.prepare('select count(*) n from decisions').get()).toEqual(before);
    const explained = await viewer.plans.explainCluster({ name: plan.decisions[0]!.cluster });
    expect(explained.decision).toEqual(plan.decisions[0]);
    expect((await rejection(viewer.plans.explainCluster({ name: 'nope' }))).code).toBe('NOT_FOUND');
    const lint = await viewer.plans.lint();
    expect(Array.isArray(lint.warnings)).toBe(true);
    for (const w of lint.warnings) expect(w.path.startsWith('clusters[') ? w.path.startsWith('clusters[name=') : true).toBe(true);
  });
});

describe('policies router: clusters the provider no longer reports', () => {
  it("a gone cluster's policy is still checked: an edit that would break it is refused, and previews leave it out", async () => {
    const op = callerAs('operator', 'alice');
    // a sector only one cluster uses
    const org = await op.policies.organization();
    const withSolo = settingsOf(org);
    withSolo.sectors.push({ name: 'solo', maxParallelUpgrades: null, dependencies: [] });
    const added = await op.policies.updateOrganization({ expectedRevision: org.revision, organization: withSolo });
    const cp = (await op.policies.clusterPolicies()).find((c) => c.policy !== null)!;
    const moved = await op.policies.updateClusterPolicy({
      name: cp.name,
      expectedRevision: cp.revision,
      policy: { ...cp.policy!, conditions: { ...cp.policy!.conditions, sector: 'solo', mutexes: [] } },
    });
    db.$client.prepare("update clusters set upgrade_state = 'gone' where name = ?").run(cp.name);

    // removing the sector the gone cluster's policy names would leave a fleet that does not validate once it is back
    const withoutSolo = settingsOf(added.organization);
    withoutSolo.sectors = withoutSolo.sectors.filter((s) => s.name !== 'solo');
    await expect(op.policies.updateOrganization({ expectedRevision: added.revision, organization: withoutSolo })).rejects.toThrow(
      /not valid|solo/,
    );
    expect((await op.policies.organization()).revision).toBe(added.revision);
    // its own policy is validated like any other
    const bad = { ...moved.cluster.policy!, conditions: { ...moved.cluster.policy!.conditions, sector: 'no-such-sector' } };
    await expect(op.policies.updateClusterPolicy({ name: cp.name, expectedRevision: moved.revision, policy: bad })).rejects.toThrow(
      /not valid/,
    );
    // a preview of an unrelated change does not count it
    const blocked = settingsOf(added.organization);
    blocked.blockedVersions.push({ pattern: '.', reason: 'stop' });
    const impact = await op.policies.previewImpact({ organization: blocked });
    expect(impact.ok).toBe(true);
    expect(impact.changes.length).toBeGreaterThan(0);
    expect(impact.changes.map((c) => c.cluster)).not.toContain(cp.name);
  });
});

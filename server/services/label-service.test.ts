// Labels and selectors through the real router and services on the demo fleet: fleetplan's labels
// overlay the provider's (audited, refused whole when one change is bad), previews and the Fleet
// filter match the effective labels, and exclusions, webhooks and hooks narrow by selector —
// including clusters that gain a matching label after the selector was written.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/open-database';
import * as t from '@/db/schema';
import { seedDemo } from '@/server/services/demo-seed-service';
import { createCaller } from '@/server/api/root';
import { createContextInner } from '@/server/api/trpc';
import type { Actor } from '@/server/auth/actor';
import { loadGateState } from '@/server/repositories/gate-state-repository';
import { gateChecks } from '@/server/domain/scheduling/apply-gates';
import { enqueueDeliveries, insertWebhook } from '@/server/repositories/webhook-repository';
import { insertHook } from '@/server/repositories/hook-repository';
import { findFirstOrganization } from '@/server/repositories/organization-repository';
import { requestHook } from './hooks/hook-service';

const NOW = new Date('2024-07-01T12:00:00Z');
const operator: Actor = { name: 'olga', role: 'operator', via: 'token' };
const viewer: Actor = { name: 'vic', role: 'viewer', via: 'token' };
const admin: Actor = { name: 'ada', role: 'admin', via: 'token' };

async function setup() {
  const db = openDatabase(':memory:');
  await seedDemo(db, NOW);
  const as = (actor: Actor) => createCaller(createContextInner({ db, fleetNow: () => NOW, actor }));
  const org = (await findFirstOrganization(db))!;
  const names = db
    .select({ name: t.clusters.name })
    .from(t.clusters)
    .where(eq(t.clusters.organizationId, org.id))
    .orderBy(t.clusters.name)
    .all()
    .map((r) => r.name);
  // the provider's labels, as discovery stores them: the first three clusters are env=stage
  const providerLabels = (name: string, labels: Record<string, string>) =>
    db.update(t.clusters).set({ labels }).where(eq(t.clusters.name, name)).run();
  names.slice(0, 3).forEach((n) => providerLabels(n, { env: 'stage', team: 'search' }));
  const auditCount = () => db.select().from(t.auditLog).all().length;
  return { db, as, org, names: names.slice(0, 3) as [string, string, string], all: names, auditCount };
}

describe('fleetplan labels', () => {
  it('overlay the provider labels; a change is audited, and only an operator may make it', async () => {
    const { as, names, auditCount } = await setup();
    const [a] = names;
    await expect(as(viewer).clusters.setLabels({ cluster: a, changes: ['env=prod'] })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const before = auditCount();
    const r = await as(operator).clusters.setLabels({ cluster: a, changes: ['env=prod', 'tier=web'] });
    expect(r).toMatchObject({
      changed: true,
      fleetplanLabels: { env: 'prod', tier: 'web' },
      labels: { env: 'prod', team: 'search', tier: 'web' },
    });
    expect(auditCount()).toBe(before + 1);
    const shown = await as(viewer).clusters.byName({ name: a });
    expect(shown.labels).toEqual({ env: 'prod', team: 'search', tier: 'web' });
    expect(shown.providerLabels).toEqual({ env: 'stage', team: 'search' });
    // removing fleetplan's env shows the provider's again; a provider-only key is reported, not removed
    const removed = await as(operator).clusters.setLabels({ cluster: a, changes: ['env-', 'team-'] });
    expect(removed.labels).toEqual({ env: 'stage', team: 'search', tier: 'web' });
    expect(removed.notFound).toEqual(['team']);
  });

  it('refuses a bad change whole, naming it, and writes nothing', async () => {
    const { as, names, auditCount } = await setup();
    const before = auditCount();
    await expect(as(operator).clusters.setLabels({ cluster: names[0], changes: ['tier=web', 'Bad_=x', 'env'] })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringContaining("'Bad_=x'") as unknown,
    });
    expect((await as(viewer).clusters.byName({ name: names[0] })).fleetplanLabels).toEqual({});
    expect(auditCount()).toBe(before);
    await expect(as(operator).clusters.setLabels({ cluster: 'no-such-cluster', changes: ['a=b'] })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});

describe('selector previews and the Fleet filter', () => {
  it('match the effective labels; an invalid selector gets the parser message', async () => {
    const { as, names, all } = await setup();
    await as(operator).clusters.setLabels({ cluster: names[1], changes: ['env=prod'] });
    const stage = await as(viewer).clusters.previewSelector({ selector: 'env=stage' });
    expect(stage).toEqual({ ok: true, count: 2, names: [names[0], names[2]], total: all.length });
    const notStage = await as(viewer).clusters.previewSelector({ selector: 'env!=stage' });
    expect(notStage).toMatchObject({ ok: true, count: all.length - 2 });
    expect(await as(viewer).clusters.previewSelector({ selector: 'env in (stage' })).toEqual({
      ok: false,
      message: "at character 14: expected ',' or ')', found the end of the selector",
    });
    const listed = await as(viewer).clusters.list({ filter: { selector: 'env in (prod,stage),team=search' } });
    expect(listed.items.map((c) => c.name).sort()).toEqual([...names].sort());
    expect(listed.total).toBe(3);
    const distribution = await as(viewer).clusters.versionDistribution({ filter: { selector: 'env=prod' } });
    expect(distribution.reduce((n, v) => n + v.total, 0)).toBe(1);
    await expect(as(viewer).clusters.list({ filter: { selector: 'env=' + 'x'.repeat(70) } })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
  });
});

describe('exclusions by selector', () => {
  const window = { startsAt: '2024-07-01T00:00:00Z', endsAt: '2024-07-02T00:00:00Z', reason: 'stage migration' };

  it('refuse an invalid or empty selector and write nothing', async () => {
    const { as, auditCount } = await setup();
    const before = auditCount();
    await expect(as(operator).exclusions.create({ ...window, scope: 'selector', subject: 'env==' + '(' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringContaining('subject: at character 6') as unknown,
    });
    await expect(as(operator).exclusions.create({ ...window, scope: 'selector', subject: '' })).rejects.toMatchObject({
      message: 'subject: write a label selector',
    });
    await expect(as(operator).exclusions.create({ ...window, scope: 'selector', subject: '!' })).rejects.toMatchObject({
      message: 'subject: at character 2: expected a label key, found the end of the selector',
    });
    expect(await as(viewer).exclusions.list()).toEqual([]);
    expect(auditCount()).toBe(before);
  });

  it('cover every matching cluster, including one labelled after the exclusion was written', async () => {
    const { db, as, org, names, all } = await setup();
    const created = await as(operator).exclusions.create({ ...window, scope: 'selector', subject: 'env=stage, team=search' });
    expect(created).toMatchObject({ scope: 'selector', subject: 'env=stage, team=search' });
    const [listed] = await as(viewer).exclusions.list();
    expect(listed?.matching).toEqual({ count: 3, names: [...names].sort() });

    const excluded = async (cluster: string) =>
      gateChecks(cluster, undefined, NOW.getTime(), await loadGateState(db, org, NOW)).find((g) => g.gate === 'exclusion')?.pass === false;
    expect(await Promise.all(names.map(excluded))).toEqual([true, true, true]);
    const other = all.find((n) => !names.includes(n))!;
    expect(await excluded(other)).toBe(false);
    await as(operator).clusters.setLabels({ cluster: other, changes: ['env=stage', 'team=search'] });
    expect(await excluded(other)).toBe(true);
    // fleetplan's env=prod on a stage cluster takes it out
    await as(operator).clusters.setLabels({ cluster: names[0], changes: ['env=prod'] });
    expect(await excluded(names[0])).toBe(false);
  });
});

describe('webhooks and hooks by selector', () => {
  it('a webhook gets only events of the clusters its selector matches (and events naming no cluster)', async () => {
    const { db, as, org, names, all } = await setup();
    const url = 'http://127.0.0.1:9/w';
    const narrowed = await insertWebhook(db, {
      organizationId: org.id,
      name: 'stage',
      url,
      secret: 's',
      events: [],
      selector: 'env=stage',
      enabled: true,
      createdAt: NOW,
    });
    await insertWebhook(db, { organizationId: org.id, name: 'all', url, secret: 's', events: [], enabled: true, createdAt: NOW });
    const other = all.find((n) => !names.includes(n))!;
    expect(await enqueueDeliveries(db, 'scheduled', { cluster: names[0] }, NOW, org.id, names[0])).toBe(2);
    expect(await enqueueDeliveries(db, 'scheduled', { cluster: other }, NOW, org.id, other)).toBe(1);
    expect(await enqueueDeliveries(db, 'scheduled', {}, NOW, org.id)).toBe(2);
    const toNarrowed = db.select().from(t.webhookDeliveries).where(eq(t.webhookDeliveries.webhookId, narrowed.id)).all();
    expect(toNarrowed.map((d) => (d.payload as { cluster?: string }).cluster ?? null)).toEqual([names[0], null]);

    // the service refuses a bad selector before anything else, and writes nothing
    await expect(as(admin).webhooks.create({ name: 'bad', url, events: [], selector: 'env in stage' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: "selector: at character 8: expected '(' and a list of values, found 'stage'",
    });
    expect(db.select().from(t.webhooks).all()).toHaveLength(2);
  });

  it('a hook is asked only for the clusters its selector matches', async () => {
    const { db, org, names, all } = await setup();
    const hook = async (name: string, selector: string | null) =>
      await insertHook(db, {
        organizationId: org.id,
        sector: null,
        selector,
        stage: 'pre-upgrade',
        name,
        url: 'http://127.0.0.1:9/h',
        secret: 's',
        timeoutSeconds: 60,
        enabled: true,
        createdBy: 'ada',
        createdAt: NOW,
      });
    const stageHook = await hook('stage-only', 'env=stage');
    const everyHook = await hook('every', null);
    const other = all.find((n) => !names.includes(n))!;
    const ask = async (id: number, cluster: string) =>
      await requestHook(
        db,
        { lifecycleId: id, stage: 'pre-upgrade', organizationId: org.id, cluster, sector: null, version: '4.13.2', fromVersion: '4.13.1' },
        NOW,
      );
    await ask(1, names[0]);
    await ask(2, other);
    const calls = db
      .select()
      .from(t.hookCalls)
      .all()
      .map((c) => [c.hookId, c.lifecycleId]);
    expect(calls.sort()).toEqual(
      [
        [stageHook.id, '1'],
        [everyHook.id, '1'],
        [everyHook.id, '2'],
      ].sort(),
    );
  });
});

describe('sector selectors through the organization editor', () => {
  it('are saved, exported and applied to managed clusters without a sector; an invalid one is refused at its path', async () => {
    const { db, as, org, names } = await setup();
    // one managed cluster whose policy names no sector, labelled env=stage by the provider
    const policy = JSON.parse(
      (db.$client.prepare('select upgrade_policy as p from clusters where name = ?').get(names[0]) as { p: string }).p,
    ) as { conditions: Record<string, unknown> };
    delete policy.conditions.sector;
    // as a policy save stores it: the sector column follows the policy (policy-repository.ts)
    db.$client.prepare('update clusters set upgrade_policy = ?, sector = null where name = ?').run(JSON.stringify(policy), names[0]);
    const stored = await as(operator).policies.organization();
    const settings = (selector: string) => ({
      sectors: stored.sectors.map((s) => ({
        name: s.name,
        maxParallelUpgrades: s.maxParallelUpgrades,
        dependencies: s.dependencies,
        ...(s.name === 'stage' ? { selector } : {}),
      })),
      blockedVersions: stored.blockedVersions.map((b) => ({ pattern: b.pattern, reason: b.reason })),
      upgradePolicyAllowedWorkloads: stored.upgradePolicyAllowedWorkloads,
      upgradePolicyAllowedMutexes: stored.upgradePolicyAllowedMutexes,
    });
    const stageIndex = stored.sectors.findIndex((s) => s.name === 'stage');
    const sectorsBefore = db.$client.prepare('select * from sectors order by id').all();
    await expect(
      as(operator).policies.updateOrganization({ expectedRevision: stored.revision, organization: settings('env in stage') }),
    ).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      cause: { problems: [expect.objectContaining({ path: `organization.sectors[${stageIndex}].selector` })] },
    });
    expect(db.$client.prepare('select * from sectors order by id').all()).toEqual(sectorsBefore);

    await as(operator).policies.updateOrganization({ expectedRevision: stored.revision, organization: settings(' env=stage ') });
    expect((await as(viewer).policies.organization()).sectors.find((s) => s.name === 'stage')?.selector).toBe('env=stage');
    expect((await as(viewer).policies.exportOrganization()).yaml).toContain('selector: env=stage');
    const { loadPlanDocument } = await import('@/server/repositories/plan-document-repository');
    const { validatePlanInput } = await import('@/server/domain/plan/validate-plan-input');
    const validated = validatePlanInput(await loadPlanDocument(db, org.id, NOW));
    if (!validated.ok) throw new Error(JSON.stringify(validated.problems));
    const conditions = validated.input.clusters.find((c) => c.name === names[0])?.upgradePolicy?.conditions;
    expect(conditions).toMatchObject({ sector: 'stage', sectorSelector: 'env=stage' });
    // the cluster's page and row show the sector the engine plans it in
    expect((await as(viewer).clusters.byName({ name: names[0] })).sector).toBe('stage');
    const stageRows = await as(viewer).clusters.list({ filter: { sector: 'stage' }, limit: 500 });
    expect(stageRows.items.map((c) => c.name)).toContain(names[0]);
    expect(stageRows.items.every((c) => c.sector === 'stage')).toBe(true);
    // a label change moves it out: fleetplan's env=dev overrides the provider's env=stage
    await as(operator).clusters.setLabels({ cluster: names[0], changes: ['env=dev'] });
    expect((await as(viewer).clusters.byName({ name: names[0] })).sector).toBeNull();
  });
});

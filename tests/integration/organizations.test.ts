// Two organizations in one instance: what a request, the scheduler and the webhooks of one see of
// the other (nothing), how a request picks its organization, and one organization's failure.
import { describe, expect, it } from 'vitest';
import { asc, eq } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import { createCaller } from '@/server/api/root';
import { createContextInner } from '@/server/api/trpc';
import type { Role } from '@/server/auth/actor';
import { createFakeProvider, type FakeProvider } from '@/server/integrations/providers/fake-provider';
import { ProviderError } from '@/server/integrations/providers/types';
import { insertTestFleet, type TestFleet } from '@/server/scheduler/test-fleet';
import { runTick } from '@/server/scheduler/run-tick';
import { renderFleetMetrics } from '@/server/metrics/collect-fleet-metrics';
import { tablesOf } from '@/server/repositories/dialect';
import { onBothDatabases } from '@/tests/support/both-databases';
import { parseExposition, series } from './fixtures/prometheus-text';

const NOW = new Date('2021-08-30T18:00:00Z');

const fleetOf = (organization: string, extra: string, blocked: string[] = []): TestFleet => ({
  organization,
  blocked,
  clusters: [
    // the same name in both organizations: names are unique per organization only
    { name: 'shared', version: '4.13.1', releases: ['4.13.2'], soakDays: 0 },
    { name: extra, version: '4.13.1', releases: ['4.13.2'], soakDays: 0 },
  ],
});

async function twoOrganizationsIn(db: Db) {
  const t = tablesOf(db);
  const alpha = await insertTestFleet(db, fleetOf('alpha', 'alpha-only', ['^4\\.13\\.2$']), NOW);
  const beta = await insertTestFleet(db, fleetOf('beta', 'beta-only'), NOW);
  const [user] = await db
    .insert(t.users)
    .values({ username: 'vic', passwordHash: 'x', role: 'operator', createdAt: NOW })
    .returning({ id: t.users.id });
  return { db, t, alpha, beta, userId: user!.id };
}

function callerFor(db: Db, opts: { organization?: string; userId?: number; role?: Role } = {}) {
  return createCaller(
    createContextInner({
      db,
      fleetNow: () => NOW,
      realNow: () => NOW,
      actor: { name: 'vic', role: opts.role ?? 'operator', via: 'session', userId: opts.userId },
      organization: opts.organization,
    }),
  );
}

const names = (items: { name: string }[]) => items.map((c) => c.name).sort();

onBothDatabases('several organizations per instance', (open) => {
  const twoOrganizations = async () => twoOrganizationsIn(await open());

  it("a request sees the organization it names and nothing of the other's fleet, policies or facets", async () => {
    const { db } = await twoOrganizations();
    const alpha = callerFor(db, { organization: 'alpha' });
    const beta = callerFor(db, { organization: 'beta' });
    expect(names((await alpha.clusters.list({})).items)).toEqual(['alpha-only', 'shared']);
    expect(names((await beta.clusters.list({})).items)).toEqual(['beta-only', 'shared']);
    expect((await alpha.fleet.status()).organization).toBe('alpha');
    expect((await beta.fleet.status()).clusterCount).toBe(2);
    expect((await alpha.policies.organization()).blockedVersions.map((b) => b.pattern)).toEqual(['^4\\.13\\.2$']);
    expect((await beta.policies.organization()).blockedVersions).toEqual([]);
    // the same cluster name is a different cluster in each: each explanation follows its own organization's blocked list
    const explainAlpha = await alpha.clusters.explain({ name: 'shared' });
    const explainBeta = await beta.clusters.explain({ name: 'shared' });
    expect(explainAlpha.explanation?.decision).not.toMatchObject({ action: 'upgrade' });
    expect(explainBeta.explanation?.decision).toMatchObject({ action: 'upgrade', version: '4.13.2' });
    await expect(alpha.clusters.byName({ name: 'beta-only' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // the Paths page picks a source among the organization's clusters only (the update graphs are the instance's)
    expect(names((await beta.graphs.clusterOptions({})).clusters)).toEqual(['beta-only', 'shared']);
  });

  it('an unknown organization is NOT_FOUND and nothing is written', async () => {
    const { db, t } = await twoOrganizations();
    const nope = callerFor(db, { organization: 'nope', role: 'admin' });
    await expect(nope.clusters.list({})).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'There is no organization named "nope"' });
    const before = (await db.select().from(t.blockedVersions)).length;
    await expect(nope.policies.addBlockedVersion({ pattern: '^4\\.14\\..*$', reason: 'x' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await db.select().from(t.blockedVersions)).toHaveLength(before);
    expect(await db.select().from(t.auditLog)).toEqual([]);
  });

  it("a write goes to the request's organization only", async () => {
    const { db, t } = await twoOrganizations();
    await callerFor(db, { organization: 'beta', role: 'admin' }).policies.addBlockedVersion({ pattern: '^4\\.14\\..*$', reason: 'beta' });
    const byOrg = await db
      .select({ org: t.organizations.name, pattern: t.blockedVersions.pattern })
      .from(t.blockedVersions)
      .innerJoin(t.organizations, eq(t.organizations.id, t.blockedVersions.organizationId));
    expect(byOrg.sort((a, b) => a.pattern.localeCompare(b.pattern))).toEqual([
      { org: 'alpha', pattern: '^4\\.13\\.2$' },
      { org: 'beta', pattern: '^4\\.14\\..*$' },
    ]);
  });

  it("without a named organization: the user's remembered one, else the first", async () => {
    const { db, userId } = await twoOrganizations();
    expect((await callerFor(db, { userId }).organizations.list()).current).toBe('alpha');
    await callerFor(db, { userId }).organizations.select({ name: 'beta' });
    const next = callerFor(db, { userId });
    expect(await next.organizations.list()).toMatchObject({ current: 'beta', remembered: 'beta' });
    expect(names((await next.clusters.list({})).items)).toEqual(['beta-only', 'shared']);
    // a named organization wins over the remembered one
    expect((await callerFor(db, { userId, organization: 'alpha' }).fleet.status()).organization).toBe('alpha');
    await expect(callerFor(db, { userId }).organizations.select({ name: 'nope' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await callerFor(db, { userId }).organizations.list()).current).toBe('beta');
  });

  it('admins create an organization; a taken name is refused', async () => {
    const { db } = await twoOrganizations();
    await expect(callerFor(db, { role: 'operator' }).organizations.create({ name: 'gamma' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const admin = callerFor(db, { role: 'admin' });
    expect(await admin.organizations.create({ name: 'gamma' })).toMatchObject({ name: 'gamma', created: true });
    expect((await admin.organizations.list()).organizations.map((o) => o.name)).toEqual(['alpha', 'beta', 'gamma']);
    await expect(admin.organizations.create({ name: 'beta' })).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await callerFor(db, { organization: 'gamma' }).clusters.list({})).toMatchObject({ total: 0 });
  });

  describe('blocked versions of the whole instance', () => {
    it('an admin blocks a version in every organization: explanations, the forecast and the scheduler say so', async () => {
      const fleet = await twoOrganizations();
      const { t } = fleet;
      await fleet.db.delete(t.blockedVersions);
      const beta = callerFor(fleet.db, { organization: 'beta' });
      expect((await beta.forecast.run({ horizonDays: 5, upgradeMinutes: 60, limit: 10, offset: 0 })).stats.upgrades).toBeGreaterThan(0);
      await expect(
        callerFor(fleet.db, { role: 'operator' }).instance.addBlockedVersion({ pattern: '^4\\.13\\.2$', reason: 'x' }),
      ).rejects.toMatchObject({
        code: 'FORBIDDEN',
      });
      const admin = callerFor(fleet.db, { role: 'admin', organization: 'alpha' });
      await expect(admin.instance.addBlockedVersion({ pattern: '(?=4)', reason: 'bad' })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      await admin.instance.addBlockedVersion({ pattern: '^4\\.13\\.2$', reason: 'CVE in 4.13.2' });
      await expect(admin.instance.addBlockedVersion({ pattern: '^4\\.13\\.2$', reason: 'again' })).rejects.toMatchObject({
        code: 'CONFLICT',
      });
      expect(await beta.instance.blockedVersions()).toMatchObject([{ pattern: '^4\\.13\\.2$', reason: 'CVE in 4.13.2', createdBy: 'vic' }]);
      // each organization's own list is unchanged
      expect(await fleet.db.select().from(t.blockedVersions)).toEqual([]);
      for (const org of ['alpha', 'beta']) {
        const why = await callerFor(fleet.db, { organization: org }).clusters.explain({ name: 'shared' });
        expect(why.explanation?.decision).toMatchObject({ action: 'skip', reason: 'VERSION_BLOCKED' });
        expect(why.blockers?.all).toEqual([
          { rule: 'blocked', version: '4.13.2', message: 'blocked by ^4\\.13\\.2$ (blocked instance-wide)', clearsByNextRun: false },
        ]);
      }
      expect((await beta.forecast.run({ horizonDays: 5, upgradeMinutes: 60, limit: 10, offset: 0 })).stats.upgrades).toBe(0);
      const r = await runTick({
        db: fleet.db,
        now: NOW,
        holder: 'test',
        realNow: () => NOW,
        providerFor: (org) => createFakeProvider({ clusters: org.name === 'alpha' ? fleet.alpha.fakeClusters : fleet.beta.fakeClusters }),
      });
      expect(r.status === 'succeeded' && r.decisions.filter((d) => d.action === 'upgrade')).toEqual([]);
      await admin.instance.removeBlockedVersion({ pattern: '^4\\.13\\.2$' });
      expect((await beta.clusters.explain({ name: 'shared' })).explanation?.decision).toMatchObject({ action: 'upgrade' });
      expect(await fleet.db.select({ action: t.auditLog.action }).from(t.auditLog).orderBy(asc(t.auditLog.id))).toEqual([
        { action: 'instance.blocked-version.add' },
        { action: 'instance.blocked-version.remove' },
      ]);
    });
  });

  it('admins give an organization its own provider: a kind and a credentials reference, never a secret', async () => {
    const { db, t } = await twoOrganizations();
    const admin = callerFor(db, { role: 'admin' });
    await expect(
      callerFor(db, { role: 'operator' }).organizations.setProvider({ organization: 'beta', kind: 'ocm', credentialsRef: 'X' }),
    ).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    // a token pasted where the variable's name belongs is refused, and nothing is stored
    await expect(
      admin.organizations.setProvider({ organization: 'beta', kind: 'ocm', credentialsRef: 'eyJhbGciOiJSUzI1NiJ9.e30.sig' }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(
      admin.organizations.setProvider({ organization: 'beta', kind: 'kubernetes', credentialsRef: 'relative/kubeconfig' }),
    ).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    await expect(admin.organizations.setProvider({ organization: 'nope', kind: 'simulator' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await db.select({ kind: t.organizations.providerKind }).from(t.organizations)).toEqual([{ kind: null }, { kind: null }]);
    await admin.organizations.setProvider({ organization: 'beta', kind: 'ocm', credentialsRef: 'BETA_OCM_OFFLINE_TOKEN' });
    expect(await admin.organizations.providers()).toEqual([
      { name: 'alpha', provider: null, credentialsRef: null },
      { name: 'beta', provider: 'ocm', credentialsRef: 'BETA_OCM_OFFLINE_TOKEN' },
    ]);
    // without the variable, beta's connection test says so (and names no secret)
    const test = await callerFor(db, { role: 'admin', organization: 'beta' }).setup.testConnection();
    expect(test).toMatchObject({ ok: false });
    expect(test.ok === false && test.message).toContain(
      'the environment variable BETA_OCM_OFFLINE_TOKEN (its OCM credentials reference) is not set',
    );
  });

  describe('the scheduler', () => {
    function providers(fleet: Awaited<ReturnType<typeof twoOrganizations>>, failBeta = false) {
      const byOrg = new Map<string, FakeProvider>([
        ['alpha', createFakeProvider({ clusters: fleet.alpha.fakeClusters })],
        [
          'beta',
          createFakeProvider({
            clusters: fleet.beta.fakeClusters,
            failWith: (op) => (failBeta && op === 'list' ? new ProviderError('fake', 'beta provider unreachable', 503) : undefined),
          }),
        ],
      ]);
      return byOrg;
    }

    it("plans each organization with its own policies: alpha's blocked version holds alpha only", async () => {
      const fleet = await twoOrganizations();
      const { t } = fleet;
      const byOrg = providers(fleet);
      const r = await runTick({ db: fleet.db, now: NOW, holder: 'test', realNow: () => NOW, providerFor: (org) => byOrg.get(org.name)! });
      expect(r.status).toBe('succeeded');
      const decisions = await fleet.db
        .select({ org: t.clusters.organizationId, name: t.clusters.name, action: t.clusters.lastDecisionAction })
        .from(t.clusters);
      const of = (org: number) =>
        decisions
          .filter((d) => d.org === org)
          .map((d) => `${d.name}:${d.action}`)
          .sort();
      expect(of(fleet.alpha.organizationId)).toEqual(['alpha-only:skip', 'shared:skip']);
      expect(of(fleet.beta.organizationId)).toEqual(['beta-only:upgrade', 'shared:upgrade']);
      // each provider was asked for its own clusters only
      expect(byOrg.get('beta')!.calls.some((c) => c.cluster === 'alpha-only')).toBe(false);
      expect(r.status === 'succeeded' && r.organizations).toEqual([
        { organization: 'alpha', status: 'succeeded' },
        { organization: 'beta', status: 'succeeded' },
      ]);
      // the Activity page and each cluster's events show the organization's own decisions (the
      // same cluster name in both organizations included)
      const decided = async (org: string) =>
        (await callerFor(fleet.db, { organization: org }).activity.decisions({ limit: 50 })).rows
          .map((d) => `${d.clusterName}:${d.action}`)
          .sort();
      expect(await decided('alpha')).toEqual(['alpha-only:skip', 'shared:skip']);
      expect(await decided('beta')).toEqual(['beta-only:upgrade', 'shared:upgrade']);
      const events = await callerFor(fleet.db, { organization: 'beta' }).clusters.explain({ name: 'shared' });
      expect(events.events.decisions.map((d) => d.action)).toEqual(['upgrade']);
      const upgrades = await callerFor(fleet.db, { organization: 'alpha' }).activity.upgrades({ limit: 50 });
      expect(upgrades.rows).toEqual([]);
      const betaUpgrades = await callerFor(fleet.db, { organization: 'beta' }).activity.upgrades({ limit: 50 });
      expect(betaUpgrades.rows.map((u) => u.clusterName).sort()).toEqual(['beta-only', 'shared']);
    });

    it("one organization's unreachable provider does not stop the other's", async () => {
      const fleet = await twoOrganizations();
      const { t } = fleet;
      const byOrg = providers(fleet, true);
      // alpha blocks nothing this time, so it has upgrades to schedule
      await fleet.db.delete(t.blockedVersions);
      const r = await runTick({ db: fleet.db, now: NOW, holder: 'test', realNow: () => NOW, providerFor: (org) => byOrg.get(org.name)! });
      expect(r).toMatchObject({
        status: 'failed',
        error: 'organization beta: beta provider unreachable',
        organizations: [
          { organization: 'alpha', status: 'succeeded' },
          { organization: 'beta', status: 'failed', error: 'beta provider unreachable' },
        ],
      });
      const attempts = await fleet.db.select({ cluster: t.upgradeLifecycles.clusterId }).from(t.upgradeLifecycles);
      const alphaIds = new Set(
        (await fleet.db.select({ id: t.clusters.id, org: t.clusters.organizationId }).from(t.clusters))
          .filter((c) => c.org === fleet.alpha.organizationId)
          .map((c) => c.id),
      );
      expect(attempts.length).toBe(2);
      expect(attempts.every((a) => alphaIds.has(a.cluster))).toBe(true);
    });

    it('labels the metrics by organization: decisions, reconciles, provider errors and freezes of each', async () => {
      const fleet = await twoOrganizations();
      const { t } = fleet;
      await fleet.db.update(t.organizations).set({ frozen: true }).where(eq(t.organizations.name, 'beta'));
      const byOrg = providers(fleet, true);
      await runTick({ db: fleet.db, now: NOW, holder: 'test', realNow: () => NOW, providerFor: (org) => byOrg.get(org.name)! });
      const parsed = parseExposition(await renderFleetMetrics(fleet.db, NOW, { providerName: 'fake' }));
      expect(series(parsed, 'fleetplan_scheduler_decisions_total')).toEqual([
        { labels: { action: 'skip', organization: 'alpha', reason: 'VERSION_BLOCKED' }, value: 2 },
      ]);
      expect(series(parsed, 'fleetplan_provider_errors_total')).toEqual([
        { labels: { operation: 'observe', organization: 'beta', provider: 'fake' }, value: 1 },
      ]);
      expect(series(parsed, 'fleetplan_organization_frozen')).toEqual([
        { labels: { organization: 'alpha' }, value: 0 },
        { labels: { organization: 'beta' }, value: 1 },
      ]);
      const reconciled = (name: string) => series(parsed, name).map((s) => ({ org: s.labels.org_id, value: s.value }));
      expect(reconciled('aus_organization_reconciled_total')).toEqual([
        { org: String(fleet.alpha.organizationId), value: 1 },
        { org: String(fleet.beta.organizationId), value: 1 },
      ]);
      expect(reconciled('aus_organization_reconcile_errors_total')).toEqual([
        { org: String(fleet.alpha.organizationId), value: 0 },
        { org: String(fleet.beta.organizationId), value: 1 },
      ]);
      // the reference's cluster families of both organizations, each cluster once
      const health = series(parsed, 'aus_cluster_health_state').map((s) => s.labels.cluster_uuid);
      expect(health.sort()).toEqual(['ext-alpha-alpha-only', 'ext-alpha-shared', 'ext-beta-beta-only', 'ext-beta-shared']);
    });

    it("sends an organization's events to its own webhooks only", async () => {
      const fleet = await twoOrganizations();
      const { t } = fleet;
      await fleet.db.delete(t.blockedVersions);
      for (const [name, org] of [
        ['alpha-hook', fleet.alpha.organizationId],
        ['beta-hook', fleet.beta.organizationId],
      ] as const)
        await fleet.db
          .insert(t.webhooks)
          .values({ name, url: 'https://example.com/h', secret: 's', events: [], enabled: true, createdAt: NOW, organizationId: org });
      const byOrg = providers(fleet);
      await runTick({ db: fleet.db, now: NOW, holder: 'test', realNow: () => NOW, providerFor: (org) => byOrg.get(org.name)! });
      const deliveries = await fleet.db
        .select({ hook: t.webhooks.name, payload: t.webhookDeliveries.payload })
        .from(t.webhookDeliveries)
        .innerJoin(t.webhooks, eq(t.webhooks.id, t.webhookDeliveries.webhookId));
      expect(deliveries.length).toBeGreaterThan(0);
      for (const d of deliveries) {
        const payload = d.payload as { organization: string };
        expect(`${d.hook}:${payload.organization}`).toMatch(/^(alpha-hook:alpha|beta-hook:beta)$/);
      }
      expect(new Set(deliveries.map((d) => d.hook))).toEqual(new Set(['alpha-hook', 'beta-hook']));
    });
  });
});

// /api/metrics through the real route handler, its body read back with a strict parser of the
// text format: the reference upgrade service's families under their own names, label names (in
// its order) and values; fleetplan's own under fleetplan_*; counters from the database.
import { eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Db } from '@/db/open-database';
import type { LifecycleStateValue } from '@/db/schema';
import { bootstrapAuth, ensureAuthBootstrap } from '@/server/auth/bootstrap';
import { parseEnv } from '@/server/env';
import { countDecisions, countProviderError, countTick } from '@/server/metrics/counters';
import { LIFECYCLE_STATES } from '@/server/domain/lifecycle/machine';
import { renderFleetMetrics } from '@/server/metrics/collect-fleet-metrics';
import { tablesOf } from '@/server/repositories/dialect';
import { acknowledgeAttemptFailure, insertAttempt } from '@/server/repositories/lifecycle-repository';
import { saveVersionData } from '@/server/repositories/soak-repository';
import { insertTestFleet } from '@/server/scheduler/test-fleet';
import { createServices } from '@/server/services/create-services';
import { onBothDatabases } from '@/tests/support/both-databases';
import { parseExposition, series, type ParsedExposition } from './fixtures/prometheus-text';

vi.mock('server-only', () => ({}));
const { GET: metricsGet } = await import('@/app/api/metrics/route');

const NOW = new Date('2021-08-30T18:00:00Z');
const globalForDb = globalThis as unknown as { __fleetplanDb?: Db };
const BASE = { integration: 'fleetplan', ocm_env: 'simulator' };
let db: Db;
let organizationId: number;

onBothDatabases('/api/metrics', (open) => {
  beforeEach(async () => {
    db = await open();
    await bootstrapAuth(db, { env: parseEnv({ FLEETPLAN_ADMIN_PASSWORD: 'correct horse battery' }), log: () => {} });
    await ensureAuthBootstrap(db);
    globalForDb.__fleetplanDb = db;
    ({ organizationId } = await insertTestFleet(
      db,
      {
        sectors: [{ name: 'canary' }, { name: 'prod', dependencies: ['canary'] }],
        blocked: ['^4\\.13\\.3$'],
        clusters: [
          { name: 'alpha', version: '4.13.1', releases: ['4.13.2', '4.13.3'], soakDays: 2, mutexes: ['m1', 'm2'], sector: 'canary' },
          { name: 'beta', version: '4.13.2', releases: [], workloads: ['wl', 'batch'], sector: 'prod', healthIssues: ['KubeAPIDown'] },
          { name: 'gamma', version: '4.13.1', releases: ['4.13.2'], managed: false },
        ],
      },
      NOW,
    ));
    // one day of soak for 4.13.2 on wl, stored at NOW: nothing more accumulates before the scrape
    await saveVersionData(db, organizationId, { versions: { '4.13.2': { workloads: { wl: { soakDays: 1, reporting: ['beta'] } } } } }, NOW);
  });

  async function scrape(): Promise<ParsedExposition> {
    const services = createServices({ db, fleetNow: () => NOW, realNow: () => new Date(), env: parseEnv({}) });
    const { token } = await services.tokens.create({
      name: 'prometheus',
      scope: 'viewer',
      actor: { name: 'admin', role: 'admin', via: 'session', userId: 1 },
    });
    const res = await metricsGet(
      new Request('http://fleet.test/api/metrics', { headers: { authorization: `Bearer ${token}`, host: 'fleet.test' } }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    return parseExposition(await res.text());
  }

  describe('/api/metrics and narrow tokens', () => {
    it('refuses a token scoped to approvals:write (it approves gates and reads nothing)', async () => {
      const services = createServices({ db, fleetNow: () => NOW, realNow: () => new Date(), env: parseEnv({}) });
      const { token } = await services.tokens.create({
        name: 'ci',
        scope: 'approvals:write',
        actor: { name: 'admin', role: 'admin', via: 'session', userId: 1 },
      });
      const res = await metricsGet(
        new Request('http://fleet.test/api/metrics', { headers: { authorization: `Bearer ${token}`, host: 'fleet.test' } }),
      );
      expect(res.status).toBe(403);
      expect(await res.text()).toBe('this token may only do approvals:write\n');
    });
  });

  describe('/api/metrics: the reference upgrade service families', () => {
    it('aus_cluster_upgrade_policy_info: one series per cluster with a policy, every reference label in its order', async () => {
      const info = series(await scrape(), 'aus_cluster_upgrade_policy_info');
      expect(info.map((s) => Object.keys(s.labels))).toEqual([
        [
          'integration',
          'ocm_env',
          'cluster_uuid',
          'org_id',
          'org_name',
          'channel',
          'current_version',
          'cluster_name',
          'schedule',
          'sector',
          'mutexes',
          'soak_days',
          'workloads',
          'product',
          'hypershift',
        ],
        expect.any(Array),
      ]);
      const common = {
        ...BASE,
        org_id: String(organizationId),
        org_name: 'test-org',
        channel: 'stable',
        schedule: '* * * * *',
        product: '',
        hypershift: 'false',
      };
      expect(info).toEqual([
        {
          labels: {
            ...common,
            cluster_uuid: 'ext-alpha',
            current_version: '4.13.1',
            cluster_name: 'alpha',
            sector: 'canary',
            mutexes: 'm1,m2',
            soak_days: '2',
            workloads: 'wl',
          },
          value: 1,
        },
        {
          // no soakDays in the policy: the reference writes `soak_days or 0`
          labels: {
            ...common,
            cluster_uuid: 'ext-beta',
            current_version: '4.13.2',
            cluster_name: 'beta',
            sector: 'prod',
            mutexes: '',
            soak_days: '0',
            workloads: 'wl,batch',
          },
          value: 1,
        },
      ]);
    });

    it('remaining soak (blocked -4, then days left), health per source, version data, validation errors', async () => {
      const parsed = await scrape();
      expect(series(parsed, 'aus_cluster_version_remaining_soak_days')).toEqual([
        { labels: { ...BASE, cluster_uuid: 'ext-alpha', soaking_version: '4.13.3' }, value: -4 },
        { labels: { ...BASE, cluster_uuid: 'ext-alpha', soaking_version: '4.13.2' }, value: 1 },
      ]);
      expect(series(parsed, 'aus_cluster_health_state')).toEqual([
        { labels: { ...BASE, cluster_uuid: 'ext-alpha', health_source: 'fake' }, value: 1 },
        { labels: { ...BASE, cluster_uuid: 'ext-beta', health_source: 'fake' }, value: 0 },
      ]);
      const versionData = series(parsed, 'aus_organization_version_data');
      expect(versionData).toContainEqual({
        labels: { ...BASE, org_id: String(organizationId), version: '4.13.2', workload: 'wl' },
        value: 1,
      });
      expect(versionData.every((s) => Object.keys(s.labels).join() === 'integration,ocm_env,org_id,version,workload')).toBe(true);
      expect(series(parsed, 'aus_organization_validation_errors')).toEqual([
        { labels: { ...BASE, org_id: String(organizationId) }, value: 0 },
      ]);
      for (const name of [
        'aus_cluster_version_remaining_soak_days',
        'aus_cluster_upgrade_policy_info',
        'aus_cluster_health_state',
        'aus_organization_version_data',
      ])
        expect(parsed.types.get(name)).toBe('gauge');
    });

    it('an invalid stored fleet: validation errors counted, no cluster series', async () => {
      // a cron the policy validation refuses, written behind the validation's back
      const { clusters } = tablesOf(db);
      const [alpha] = await db.select({ policy: clusters.upgradePolicy }).from(clusters).where(eq(clusters.name, 'alpha'));
      await db
        .update(clusters)
        .set({ upgradePolicy: { ...alpha!.policy, schedule: '0 48 * * 1-5' } })
        .where(eq(clusters.name, 'alpha'));
      const parsed = await scrape();
      const errors = series(parsed, 'aus_organization_validation_errors');
      expect(errors).toHaveLength(1);
      expect(errors[0]!.value).toBeGreaterThan(0);
      expect(series(parsed, 'aus_cluster_upgrade_policy_info')).toEqual([]);
    });

    it('reconciles and their errors per organization, environment errors, from the counters in the database', async () => {
      await countTick(db, { status: 'succeeded', dryRun: false, durationSeconds: 0.2 });
      await countTick(db, { status: 'failed', dryRun: false, durationSeconds: 3 });
      await countTick(db, { status: 'succeeded', dryRun: true, durationSeconds: 0.04 }); // a preview: no reconcile
      await countProviderError(db, 'fake', 'list-clusters');
      await countProviderError(db, 'fake', 'schedule-upgrade');
      const parsed = await scrape();
      const org = { ...BASE, org_id: String(organizationId) };
      expect(parsed.types.get('aus_organization_reconciled')).toBe('counter');
      expect(series(parsed, 'aus_organization_reconciled_total')).toEqual([{ labels: org, value: 2 }]);
      expect(series(parsed, 'aus_organization_reconcile_errors_total')).toEqual([{ labels: org, value: 1 }]);
      expect(series(parsed, 'aus_ocm_environment_errors_total')).toEqual([{ labels: BASE, value: 1 }]);
    });
  });

  describe('/api/metrics: fleetplan_* families', () => {
    it('tick counts, the tick-duration histogram and decisions come from the database', async () => {
      await countTick(db, { status: 'succeeded', dryRun: false, durationSeconds: 0.2 });
      await countTick(db, { status: 'succeeded', dryRun: false, durationSeconds: 1.5 });
      await countTick(db, { status: 'failed', dryRun: false, durationSeconds: 40 });
      await countDecisions(db, [
        { action: 'upgrade', reason: null },
        { action: 'skip', reason: 'SOAK_DAYS' },
        { action: 'skip', reason: 'SOAK_DAYS' },
      ]);
      const parsed = await scrape();
      expect(series(parsed, 'fleetplan_scheduler_ticks_total')).toEqual([
        { labels: { status: 'failed' }, value: 1 },
        { labels: { status: 'succeeded' }, value: 2 },
      ]);
      expect(series(parsed, 'fleetplan_scheduler_decisions_total')).toEqual([
        { labels: { action: 'skip', reason: 'SOAK_DAYS' }, value: 2 },
        { labels: { action: 'upgrade', reason: 'UPGRADE' }, value: 1 },
      ]);
      expect(parsed.types.get('fleetplan_scheduler_tick_duration_seconds')).toBe('histogram');
      const succeeded = { status: 'succeeded', dry_run: 'false' };
      const buckets = series(parsed, 'fleetplan_scheduler_tick_duration_seconds_bucket').filter((s) => s.labels.status === 'succeeded');
      expect(buckets.map((s) => [s.labels.le, s.value])).toEqual([
        ['0.05', 0],
        ['0.1', 0],
        ['0.25', 1],
        ['0.5', 1],
        ['1', 1],
        ['2', 2],
        ['5', 2],
        ['10', 2],
        ['30', 2],
        ['+Inf', 2],
      ]);
      expect(series(parsed, 'fleetplan_scheduler_tick_duration_seconds_sum')).toContainEqual({ labels: succeeded, value: 1.7 });
      expect(series(parsed, 'fleetplan_scheduler_tick_duration_seconds_count')).toContainEqual({ labels: succeeded, value: 2 });
      expect(series(parsed, 'fleetplan_scheduler_tick_duration_seconds_bucket')).toContainEqual({
        labels: { status: 'failed', dry_run: 'false', le: '30' },
        value: 0,
      });
      expect(series(parsed, 'fleetplan_organization_frozen')).toEqual([{ labels: { organization: 'test-org' }, value: 0 }]);
    });

    it('a scrape after a write shows it; an unchanged database serves the same body', async () => {
      const first = await renderFleetMetrics(db, NOW, { providerName: 'simulator' });
      expect(await renderFleetMetrics(db, new Date(NOW.getTime() + 30_000), { providerName: 'simulator' })).toBe(first);
      await countTick(db, { status: 'succeeded', dryRun: false, durationSeconds: 0.2 });
      const after = parseExposition(await renderFleetMetrics(db, new Date(NOW.getTime() + 30_000), { providerName: 'simulator' }));
      expect(series(after, 'fleetplan_scheduler_ticks_total')).toEqual([{ labels: { status: 'succeeded' }, value: 1 }]);
    });
  });

  describe('/api/metrics: upgrade lifecycle families', () => {
    const HOUR = 3_600_000;
    async function attempt(
      cluster: string,
      toVersion: string,
      slot: number,
      end?: { state: LifecycleStateValue; reason: string; at: number },
    ) {
      const { clusters, upgradeLifecycles } = tablesOf(db);
      const [{ id: clusterId }] = (await db.select({ id: clusters.id }).from(clusters).where(eq(clusters.name, cluster))) as [
        { id: number },
      ];
      const a = (await insertAttempt(db, {
        clusterId,
        clusterName: cluster,
        sector: null,
        fromVersion: '4.13.1',
        toVersion,
        slot,
        haltsOnFailure: true,
        at: slot - HOUR,
        actor: 'scheduler:test',
        tickId: null,
        message: 'scheduled',
      }))!;
      // the end state as the lifecycle would leave it (its own tests cover how it gets there)
      if (end)
        await db
          .update(upgradeLifecycles)
          .set({ state: end.state, reason: end.reason, updatedAt: new Date(end.at) })
          .where(eq(upgradeLifecycles.id, a.id));
      return a.id;
    }

    it('per cluster its latest attempt, clusters per state (all states), last transition, failures and timeouts counted', async () => {
      const t0 = NOW.getTime() - 10 * HOUR;
      const failed = await attempt('alpha', '4.13.2', t0, { state: 'failed', reason: 'PROVIDER_FAILED', at: t0 + HOUR });
      expect(await acknowledgeAttemptFailure(db, failed, { by: 'admin', comment: 'retry it', at: t0 + 2 * HOUR })).toBe(true);
      await attempt('alpha', '4.13.2', t0 + 3 * HOUR, { state: 'timed-out', reason: 'UPGRADE_TIMEOUT', at: t0 + 9 * HOUR });
      await attempt('beta', '4.13.3', NOW.getTime() + HOUR);

      const parsed = await scrape();
      // each organization's upgrade families carry its name
      const alpha = { organization: 'test-org', cluster: 'alpha', cluster_uuid: 'ext-alpha' };
      const beta = { organization: 'test-org', cluster: 'beta', cluster_uuid: 'ext-beta' };
      expect(series(parsed, 'fleetplan_upgrade_state')).toEqual([
        { labels: { ...alpha, from_version: '4.13.1', to_version: '4.13.2', state: 'timed-out', reason: 'UPGRADE_TIMEOUT' }, value: 1 },
        { labels: { ...beta, from_version: '4.13.1', to_version: '4.13.3', state: 'scheduled', reason: '' }, value: 1 },
      ]);
      const perState = series(parsed, 'fleetplan_upgrade_state_clusters');
      // one series per lifecycle state, operator-approvals included
      expect(perState.map((s) => s.labels.state)).toEqual([...LIFECYCLE_STATES]);
      expect(perState.filter((s) => s.value !== 0)).toEqual([
        { labels: { organization: 'test-org', state: 'scheduled' }, value: 1 },
        { labels: { organization: 'test-org', state: 'timed-out' }, value: 1 },
      ]);
      expect(series(parsed, 'fleetplan_upgrade_last_transition_timestamp_seconds')).toEqual([
        { labels: alpha, value: (t0 + 9 * HOUR) / 1000 },
        { labels: beta, value: NOW.getTime() / 1000 }, // created an hour before its slot
      ]);
      expect(parsed.types.get('fleetplan_upgrade_failures')).toBe('counter');
      expect(series(parsed, 'fleetplan_upgrade_failures_total')).toEqual([
        { labels: { ...alpha, outcome: 'failed' }, value: 1 },
        { labels: { ...alpha, outcome: 'timed-out' }, value: 1 },
      ]);
      // the acknowledged failure no longer counts as waiting; the timeout does
      expect(series(parsed, 'fleetplan_upgrade_unacknowledged_failures')).toEqual([
        { labels: { ...alpha, outcome: 'timed-out' }, value: 1 },
      ]);
    });
  });
});

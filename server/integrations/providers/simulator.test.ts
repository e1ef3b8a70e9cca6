// The simulator's failure modes, deterministic like the rest of it: stuck and failed upgrades,
// structured health problems, withdrawn releases.
import { describe, expect, it } from 'vitest';
import { healthFromIssues } from './health-reading';
import { loadDemoGraph, simulateCluster, simulatedDiscovery, stuckAt, upgradeDurationMs, withdrawnAt, hashUnit } from './simulator';

const HOUR = 3_600_000;
const BASE = Date.parse('2024-03-04T10:00:00Z');
const graph = loadDemoGraph();
const row = (over: Partial<Parameters<typeof simulateCluster>[0]> = {}) => ({
  externalId: 'sim-1',
  name: 'sim-1',
  version: '4.13.10',
  channel: 'stable-4.13',
  availableUpgrades: [],
  healthIssues: [],
  currentUpgrade: null,
  region: 'eu-west-1',
  nodeCount: 9,
  sector: 'prod-eu',
  ...over,
});
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
/** the first start time, minute by minute from BASE, for which `pick` holds */
function startWhere(pick: (startedAt: string) => boolean): string {
  for (let m = 0; m < 100_000; m++) if (pick(iso(BASE + m * 60_000))) return iso(BASE + m * 60_000);
  throw new Error('none found');
}

describe('simulator failure modes', () => {
  it('a stuck upgrade stops making progress, says why, and never completes', () => {
    const startedAt = startWhere((s) => stuckAt('sim-1', '4.13.11', s) !== null);
    const upgrade = { version: '4.13.11', nextRun: startedAt, state: 'started' as const, startedAt };
    const later = simulateCluster(row({ currentUpgrade: upgrade }), Date.parse(startedAt) + 24 * HOUR, graph);
    const muchLater = simulateCluster(row({ currentUpgrade: upgrade }), Date.parse(startedAt) + 30 * 24 * HOUR, graph);
    expect(later.currentUpgrade).toMatchObject({
      version: '4.13.11',
      state: 'started',
      message: expect.stringMatching(/not progressing/) as unknown,
    });
    expect(muchLater.currentUpgrade?.progress).toBe(later.currentUpgrade?.progress);
    expect(later.currentUpgrade!.progress!).toBeLessThan(1);
    expect(muchLater.version).toBe('4.13.10');
    expect(muchLater.lastUpgrade).toBeNull();
  });

  it('a failed upgrade ends with the reason and leaves the version', () => {
    const startedAt = startWhere((s) => stuckAt('sim-1', '4.13.11', s) === null && hashUnit(`sim-1|4.13.11|${s}|f`) < 0.05);
    const upgrade = { version: '4.13.11', nextRun: startedAt, state: 'started' as const, startedAt };
    const done = simulateCluster(
      row({ currentUpgrade: upgrade }),
      Date.parse(startedAt) + upgradeDurationMs('sim-1', '4.13.11', startedAt),
      graph,
    );
    expect(done.currentUpgrade).toBeNull();
    expect(done.version).toBe('4.13.10');
    expect(done.lastUpgrade).toMatchObject({
      version: '4.13.11',
      state: 'failed',
      message: expect.stringMatching(/\(simulated\)$/) as unknown,
    });
  });

  it('reports degraded operators and firing alerts as structured health', () => {
    const snap = simulateCluster(
      row({
        healthIssues: [
          'ClusterOperator image-registry Degraded: storage backend unreachable',
          'critical alert KubeAPIErrorBudgetBurn firing',
        ],
      }),
      BASE,
      graph,
    );
    expect(snap.health.operators).toContainEqual({
      name: 'image-registry',
      degraded: true,
      available: true,
      message: 'storage backend unreachable',
    });
    expect(snap.health.alerts).toContainEqual({ name: 'KubeAPIErrorBudgetBurn', severity: 'critical' });
    expect(snap.healthy).toBe(false);
    expect(healthFromIssues(['cluster state is installing'])).toEqual({
      operators: [],
      alerts: [],
      other: ['cluster state is installing'],
    });
  });

  it('withdraws some published releases two days after publication: they leave availableUpgrades', () => {
    // a version of the graph from which one offered release is withdrawn and another kept
    const isWithdrawn = (v: string) => withdrawnAt({ version: v, publishAt: iso(BASE) }) !== null;
    const from = graph.nodes
      .map((n) => n.version)
      .find((v) => {
        const offered = simulateCluster(row({ version: v }), BASE, graph).availableUpgrades;
        return offered.some(isWithdrawn) && offered.some((x) => !isWithdrawn(x));
      });
    expect(from).toBeDefined();
    const offeredFrom = simulateCluster(row({ version: from! }), BASE, graph).availableUpgrades;
    const withdrawn = offeredFrom.find(isWithdrawn);
    const kept = offeredFrom.find((v) => !isWithdrawn(v));
    const releases = { pending: [withdrawn!, kept!].map((version) => ({ version, publishAt: iso(BASE + HOUR) })) };
    const before = simulateCluster(row({ version: from! }), BASE, graph, releases).availableUpgrades;
    const published = simulateCluster(row({ version: from! }), BASE + 2 * HOUR, graph, releases).availableUpgrades;
    const afterWithdrawal = simulateCluster(row({ version: from! }), BASE + HOUR + 2 * 24 * HOUR + 1, graph, releases).availableUpgrades;
    expect(before).not.toContain(withdrawn);
    expect(published).toEqual(expect.arrayContaining([withdrawn, kept]));
    expect(afterWithdrawal).not.toContain(withdrawn);
    expect(afterWithdrawal).toContain(kept);
  });

  it('is deterministic: the same row and instant give the same snapshot', () => {
    const r = row({ currentUpgrade: { version: '4.13.11', nextRun: iso(BASE), state: 'scheduled' } });
    expect(simulateCluster(r, BASE + HOUR, graph)).toEqual(simulateCluster(r, BASE + HOUR, graph));
  });
});

describe('simulator discovery', () => {
  it('reports the seed region and nodes on AWS, with env, region, team and tier labels fixed per cluster', () => {
    const snap = simulateCluster(row(), BASE, graph);
    expect(snap.discovery).toEqual({
      labels: { env: 'prod', region: 'eu-west-1', team: expect.any(String) as unknown, tier: expect.any(String) as unknown },
      cloud: 'aws',
      region: 'eu-west-1',
      nodeCount: 9,
    });
    expect(simulateCluster(row(), BASE + 48 * HOUR, graph).discovery).toEqual(snap.discovery);
    expect(simulatedDiscovery({ externalId: 'sim-2', region: '', nodeCount: 3, sector: 'stage' })).toMatchObject({
      labels: { env: 'stage' },
      region: null,
    });
    const teams = new Set(
      Array.from(
        { length: 40 },
        (_, i) => simulatedDiscovery({ externalId: `sim-${i}`, region: 'x', nodeCount: 3, sector: null }).labels.team,
      ),
    );
    expect(teams.size).toBeGreaterThan(2);
  });
});

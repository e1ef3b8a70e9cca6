import fs from 'node:fs';
import path from 'node:path';
import { compareVersions } from '@/server/domain/version/version';
import { describe, expect, it } from 'vitest';
import { availableUpdates, generateDemoFleet, type DemoGraphDocument } from './demo-fleet';

const graph = JSON.parse(fs.readFileSync(path.join(__dirname, 'data', 'stable-4.13.json'), 'utf8')) as DemoGraphDocument;
const NOW = new Date('2026-11-22T12:00:00Z');

describe('generateDemoFleet', () => {
  const fleet = generateDemoFleet(graph, NOW);

  it('is deterministic for a seed', () => {
    expect(generateDemoFleet(graph, NOW)).toEqual(fleet);
  });

  it('builds a realistic organization: ~60 clusters, two sector chains, several workloads', () => {
    expect(fleet.clusters.length).toBeGreaterThanOrEqual(50);
    expect(fleet.clusters.length).toBeLessThanOrEqual(70);
    const deps = Object.fromEntries(fleet.organization.sectors.map((s) => [s.name, s.dependencies]));
    expect(deps).toMatchObject({
      stage: ['dev'],
      'prod-blue': ['stage'],
      'prod-green': ['prod-blue'],
      'hive-production': ['hive-integration'],
    });
    expect(fleet.organization.allowedWorkloads).toEqual(expect.arrayContaining(['ocm', 'quay', 'telemeter', 'hive', 'app-sre']));
    expect(new Set(fleet.clusters.map((c) => c.version.split('.').slice(0, 2).join('.'))).size).toBeGreaterThan(1);
    expect(fleet.clusters.some((c) => !c.healthy)).toBe(true);
    expect(fleet.clusters.some((c) => c.currentUpgrade?.state === 'started')).toBe(true);
  });

  it('only records upgrades along edges of the real update graph', () => {
    const edges = new Set(graph.edges.map(([a, b]) => `${graph.nodes[a]!.version}>${graph.nodes[b]!.version}`));
    for (const g of graph.conditionalEdges ?? []) for (const e of g.edges) edges.add(`${e.from}>${e.to}`);
    expect(fleet.upgrades.length).toBeGreaterThan(50);
    for (const u of fleet.upgrades) expect(edges.has(`${u.fromVersion}>${u.toVersion}`)).toBe(true);
  });

  it('offers each cluster the unconditional updates of its channel', () => {
    for (const c of fleet.clusters) {
      expect(c.availableUpgrades).toEqual(availableUpdates(graph, c.version, c.channel));
      for (const v of c.availableUpgrades) expect(compareVersions(v, c.version)).toBeGreaterThan(0);
    }
  });

  it('accumulates soak as cluster-days, never more than clusters × 60 days', () => {
    const managed = fleet.clusters.filter((c) => c.upgradePolicy).length;
    for (const s of fleet.versionSoak) {
      expect(s.soakDays).toBeGreaterThanOrEqual(0);
      expect(s.soakDays).toBeLessThanOrEqual(s.reporting.length * 60 + 1e-6);
      expect(s.reporting.length).toBeLessThanOrEqual(managed);
    }
  });

  it('scales to a large fleet of the same shape, with unique names and the same special cases', () => {
    const large = generateDemoFleet(graph, NOW, undefined, { scale: 20 });
    // the EUS cluster with a route is one at any scale
    const managed = fleet.clusters.filter((c) => c.upgradePolicy).length - 1;
    expect(large.clusters.filter((c) => c.upgradePolicy)).toHaveLength(managed * 20 + 1);
    expect(large.clusters.filter((c) => c.name === 'eus-legacy-01')).toHaveLength(1);
    expect(new Set(large.clusters.map((c) => c.name)).size).toBe(large.clusters.length);
    expect(large.organization.sectors).toEqual(fleet.organization.sectors);
    expect(large.clusters.filter((c) => !c.healthy)).toHaveLength(fleet.clusters.filter((c) => !c.healthy).length);
    expect(large.clusters.filter((c) => c.currentUpgrade)).toHaveLength(fleet.clusters.filter((c) => c.currentUpgrade).length);
    expect(large.clusters.find((c) => c.name === 'hive-prod-007')?.healthy).toBe(false);
  });
});

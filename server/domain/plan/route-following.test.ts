// Multi-minor runs follow the path solver's route (route-following.ts): table tests of the engine's
// verdicts over a small graph with a dead end, and properties over random graphs — the chosen
// version is always on a route that reaches the target, and no run ever passes a target or a cap.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateFleet, NO_GATES } from '../evaluation/evaluate-fleet';
import { forecastRollout } from '../forecast/forecast-rollout';
import { makeIndex, type GraphSpec } from '@/server/domain/path/test-builders';
import { solveUpgradePath } from '@/server/domain/path/solve-upgrade-path';
import { isPathFound } from '@/server/domain/path/types';
import { compareVersions, parseVersion } from '../version/version';
import { PlanRun } from './decide-upgrades';
import { blockedReleasesFor } from './blocked-versions';
import { channelForHop, routeFinder, type RouteFinder } from './route-following';
import { testCluster, testPlanInput, type RawCluster } from './test-plan-input';
import { boundsForCluster, parseVersionBound, withinBound, type VersionBound } from './version-bounds';
import type { Decision, PlanInput } from './types';

// 4.14.38 reaches 4.16.20 only through 4.15.45; 4.15.50 (higher, and offered) is a dead end for
// 4.16; 4.14.40 is a z-stream. Channels as the real graph lists them: a 4.15 release is in the
// stable-4.15 and stable-4.16 channels and, on the EUS path, in eus-4.16.
const GRAPH: GraphSpec = {
  nodes: [
    ['4.14.38', ['stable-4.14', 'stable-4.15', 'eus-4.14', 'eus-4.16']],
    ['4.14.40', ['stable-4.14', 'stable-4.15', 'eus-4.14', 'eus-4.16']],
    ['4.15.45', ['stable-4.15', 'stable-4.16', 'eus-4.16']],
    ['4.15.50', ['stable-4.15']],
    ['4.16.20', ['stable-4.16', 'eus-4.16']],
    ['4.16.25', ['stable-4.16', 'eus-4.16']],
  ],
  edges: [
    ['4.14.38', '4.14.40'],
    ['4.14.38', '4.15.45'],
    ['4.14.38', '4.15.50'],
    ['4.14.40', '4.15.45'],
    ['4.15.45', '4.16.20'],
    ['4.16.20', '4.16.25'],
  ],
};
const routes = routeFinder(makeIndex(GRAPH));

const on = (version: string, overrides: RawCluster = {}, conditions: Record<string, unknown> = {}) =>
  testCluster('c', { version, channel: 'stable-4.14', availableUpgrades: ['4.14.40', '4.15.50'], ...overrides }, conditions);

function decideWith(input: PlanInput, finder: RouteFinder | undefined): Decision[] {
  const run = new PlanRun(input, undefined, finder ? { routes: finder } : {});
  return run.order.map((c) => run.decide(c));
}
const decide = (clusters: RawCluster[], extra: Record<string, unknown> = {}, finder: RouteFinder | undefined = routes) =>
  decideWith(testPlanInput(clusters, extra), finder).map((d) => [d.action, d.reason ?? d.version, d.message]);

describe('route-following in the engine', () => {
  it.each([
    // [case, cluster, extra, expected action, version or reason, message part]
    [
      'target two minors away: the route, not the higher dead end',
      on('4.14.38', {}, { targetVersion: '4.16.20' }),
      {},
      'upgrade',
      '4.15.45',
      'on the route 4.14.38 → 4.15.45 → 4.16.20; next hop 4.15.45 (switching the channel to stable-4.15 first)',
    ],
    [
      "a minor target picks the minor's highest reachable release",
      on('4.14.38', {}, { targetVersion: '4.16.*' }),
      {},
      'upgrade',
      '4.15.45',
      'on the route 4.14.38 → 4.15.45 → 4.16.20 → 4.16.25; next hop 4.15.45',
    ],
    [
      "the organization's target counts like the cluster's",
      on('4.14.38'),
      { organization: { targetVersion: '4.16.20' } },
      'upgrade',
      '4.15.45',
      'next hop 4.15.45',
    ],
    [
      'a cap below the target stops the route at the cap',
      on('4.14.38', {}, { targetVersion: '4.16.*', maxVersion: '4.16.20' }),
      {},
      'upgrade',
      '4.15.45',
      'on the route 4.14.38 → 4.15.45 → 4.16.20; next hop 4.15.45',
    ],
    [
      'an EUS cluster switches to the EUS channel of the target',
      on('4.14.38', { channel: 'eus-4.14' }, { targetVersion: '4.16.20' }),
      {},
      'upgrade',
      '4.15.45',
      'next hop 4.15.45 (switching the channel to eus-4.16 first)',
    ],
    [
      "no channel switch when the cluster's channel holds the hop",
      on('4.14.38', { channel: 'stable-4.15' }, { targetVersion: '4.16.20' }),
      {},
      'upgrade',
      '4.15.45',
      'on the route 4.14.38 → 4.15.45 → 4.16.20; next hop 4.15.45',
    ],
    [
      'one minor away on a channel that holds it: greedy as before',
      on('4.14.38', { channel: 'stable-4.15' }, { targetVersion: '4.15.*' }),
      {},
      'upgrade',
      '4.15.50',
      'upgrade to 4.15.50 at',
    ],
    [
      "one minor away on a channel below it: the route's last hop, with its switch",
      on('4.15.45', { availableUpgrades: [] }, { targetVersion: '4.16.20' }),
      {},
      'upgrade',
      '4.16.20',
      'on the route 4.15.45 → 4.16.20; next hop 4.16.20 (switching the channel to stable-4.16 first)',
    ],
    ['no target: greedy as before', on('4.14.38'), {}, 'upgrade', '4.15.50', 'upgrade to 4.15.50 at'],
    ['a cap alone does not route', on('4.14.38', {}, { maxVersion: '4.16.*' }), {}, 'upgrade', '4.15.50', 'upgrade to 4.15.50 at'],
    [
      'a version the graph does not hold: greedy as before',
      on('4.14.39', {}, { targetVersion: '4.16.20' }),
      {},
      'upgrade',
      '4.15.50',
      'upgrade to 4.15.50 at',
    ],
    [
      'no release of the target minor in the graph: NO_ROUTE',
      on('4.14.38', {}, { targetVersion: '4.17.*' }),
      {},
      'skip',
      'NO_ROUTE',
      'no route to the target 4.17.*: the stored update graph holds no release of 4.17.*',
    ],
    [
      'the target unreachable from the cluster: NO_ROUTE',
      on('4.15.50', { availableUpgrades: [] }, { targetVersion: '4.17.*', maxVersion: '4.17.*' }),
      {},
      'skip',
      'NO_ROUTE',
      'no route to the target 4.17.*',
    ],
    [
      'the only route blocked: VERSION_BLOCKED naming it and its blocked hop',
      on('4.14.38', {}, { targetVersion: '4.16.20' }),
      { organization: { blockedVersions: ['4.15.45'] } },
      'skip',
      'VERSION_BLOCKED',
      'every route to 4.16.20 passes a blocked release: 4.15.45 is blocked (4.15.45) on the best route 4.14.38 → 4.15.45 → 4.16.20',
    ],
  ])('%s', (_name, cluster, extra, action, what, message) => {
    const [d] = decide([cluster], extra);
    expect(d![0]).toBe(action);
    expect(d![1]).toBe(what);
    expect(d![2]).toContain(message);
  });

  // GRAPH with a second way into 4.16: 4.14.40 → 4.15.47 → 4.16.20 (one hop longer from 4.14.38)
  const around = routeFinder(
    makeIndex({
      nodes: [...GRAPH.nodes, ['4.15.47', ['stable-4.15', 'stable-4.16']]],
      edges: [...GRAPH.edges!, ['4.14.40', '4.15.47'], ['4.15.47', '4.16.20']],
    }),
  );
  const exactly = (...versions: string[]) => versions.map((v) => `^${v.replaceAll('.', '\\.')}$`);

  it.each([
    // [case, cluster, organization, expected action, version or reason, message part]
    [
      'a blocked release on the shortest route: the route around it',
      on('4.14.38', {}, { targetVersion: '4.16.20' }),
      { blockedVersions: exactly('4.15.45') },
      'upgrade',
      '4.14.40',
      'on the route 4.14.38 → 4.14.40 → 4.15.47 → 4.16.20; next hop 4.14.40',
    ],
    [
      "the cluster policy's blocked versions count too",
      on('4.14.38', {}, { targetVersion: '4.16.20', blockedVersions: exactly('4.15.45') }),
      {},
      'upgrade',
      '4.14.40',
      'on the route 4.14.38 → 4.14.40 → 4.15.47 → 4.16.20',
    ],
    [
      'instance-wide blocked versions count too',
      on('4.14.38', {}, { targetVersion: '4.16.20' }),
      { instanceBlockedVersions: exactly('4.15.45') },
      'upgrade',
      '4.14.40',
      'on the route 4.14.38 → 4.14.40 → 4.15.47 → 4.16.20',
    ],
    [
      "a blocked release at the top of the target minor: the minor's highest unblocked one",
      on('4.14.38', {}, { targetVersion: '4.16.*' }),
      { blockedVersions: exactly('4.16.25') },
      'upgrade',
      '4.15.45',
      'on the route 4.14.38 → 4.15.45 → 4.16.20; next hop 4.15.45',
    ],
    [
      'every route blocked further on: waits, although the next hop is not blocked',
      on('4.14.38', {}, { targetVersion: '4.16.25' }),
      { blockedVersions: exactly('4.16.20') },
      'skip',
      'VERSION_BLOCKED',
      'every route to 4.16.25 passes a blocked release: 4.16.20 is blocked (^4\\.16\\.20$) on the best route 4.14.38 → 4.15.45 → 4.16.20 → 4.16.25',
    ],
    [
      'both 4.15 releases into 4.16 blocked: the best route, its first blocked hop',
      on('4.14.38', {}, { targetVersion: '4.16.20' }),
      { blockedVersions: exactly('4.15.45', '4.15.47') },
      'skip',
      'VERSION_BLOCKED',
      'every route to 4.16.20 passes a blocked release: 4.15.45 is blocked (^4\\.15\\.45$) on the best route 4.14.38 → 4.15.45 → 4.16.20',
    ],
    [
      'nothing blocked on the way: the shortest route as before',
      on('4.14.38', {}, { targetVersion: '4.16.20' }),
      { blockedVersions: exactly('4.15.50') },
      'upgrade',
      '4.15.45',
      'on the route 4.14.38 → 4.15.45 → 4.16.20; next hop 4.15.45',
    ],
  ])('around blocked releases: %s', (_name, cluster, organization, action, what, message) => {
    const [d] = decide([cluster], { organization }, around);
    expect(d![0]).toBe(action);
    expect(d![1]).toBe(what);
    expect(d![2]).toContain(message);
  });

  it('routes per cluster: the same version with other blocked versions takes another route (no shared memo)', () => {
    const a = testCluster(
      'a',
      { version: '4.14.38', channel: 'stable-4.14', availableUpgrades: ['4.14.40'] },
      { targetVersion: '4.16.20' },
    );
    const b = testCluster(
      'b',
      { version: '4.14.38', channel: 'stable-4.14', availableUpgrades: ['4.14.40'] },
      { targetVersion: '4.16.20', blockedVersions: exactly('4.15.45') },
    );
    const byName = new Map(decideWith(testPlanInput([a, b]), around).map((d) => [d.cluster, d]));
    expect(byName.get('a')!.version).toBe('4.15.45');
    expect(byName.get('b')!.version).toBe('4.14.40');
  });

  it('the why-not fails the route check naming the blocked hop; the forecast takes the route around', () => {
    const blockedAll = testPlanInput([on('4.14.38', {}, { targetVersion: '4.16.20' })], {
      organization: { blockedVersions: exactly('4.15.45', '4.15.47') },
    });
    const e = evaluateFleet(blockedAll, { ...NO_GATES, routes: around }, { explain: true }).clusters.get('c')!;
    expect(e.checks.find((k) => k.rule === 'route')).toMatchObject({
      pass: false,
      details: { blockedHop: '4.15.45', blockedBy: '^4\\.15\\.45$' },
    });
    expect(e.decision).toMatchObject({ action: 'skip', reason: 'VERSION_BLOCKED' });
    const input = testPlanInput([on('4.14.38', {}, { targetVersion: '4.16.20' })], {
      organization: { blockedVersions: exactly('4.15.45') },
    });
    const [routed] = forecastRollout(input, { horizonDays: 3, routes: around }).clusters;
    expect(routed!.upgrades.map((u) => u.version)).toEqual(['4.14.40', '4.15.47', '4.16.20']);
  });

  it("NO_ROUTE when 4.17 exists but the cluster's version leads nowhere", () => {
    const finder = routeFinder(makeIndex({ ...GRAPH, nodes: [...GRAPH.nodes, '4.17.3'], edges: [...GRAPH.edges!, ['4.16.25', '4.17.3']] }));
    const [d] = decide([on('4.15.50', { availableUpgrades: [] }, { targetVersion: '4.17.3' })], {}, finder);
    expect(d).toEqual(['skip', 'NO_ROUTE', 'no route to the target 4.17.3: No update path from 4.15.50 to 4.17.3.']);
    const [fromRoute] = decide([on('4.14.38', {}, { targetVersion: '4.17.3' })], {}, finder);
    expect(fromRoute![2]).toContain('on the route 4.14.38 → 4.15.45 → 4.16.20 → 4.16.25 → 4.17.3; next hop 4.15.45');
  });

  it('without a stored graph every decision is what it was', () => {
    const clusters = [on('4.14.38', {}, { targetVersion: '4.16.20' })];
    const [d] = decideWith(testPlanInput(clusters), undefined);
    expect([d!.action, d!.version]).toEqual(['upgrade', '4.15.50']);
    expect(d!.message).toMatch(/^upgrade to 4.15.50 at [^;]*$/);
  });

  it('the why-not shows the route and what it leaves off', () => {
    const input = testPlanInput([on('4.14.38', {}, { targetVersion: '4.16.20' })]);
    const e = evaluateFleet(input, { ...NO_GATES, routes }, { explain: true }).clusters.get('c')!;
    const route = e.checks.find((k) => k.rule === 'route')!;
    expect(route).toMatchObject({
      pass: true,
      message:
        'on the route 4.14.38 → 4.15.45 → 4.16.20; next hop 4.15.45 (switching the channel to stable-4.15 first); off the route, not taken: 4.15.50, 4.14.40',
      details: { route: '4.14.38 → 4.15.45 → 4.16.20', target: '4.16.20', nextHop: '4.15.45', channel: 'stable-4.15' },
    });
    expect(e.candidates.map((c) => [c.version, c.chosen])).toEqual([['4.15.45', true]]);
    const plain = evaluateFleet(input, NO_GATES, { explain: true }).clusters.get('c')!;
    expect(plain.checks.some((k) => k.rule === 'route')).toBe(false);
  });

  it('the forecast follows the same route hop by hop and stops at the target', () => {
    const input = testPlanInput([on('4.14.38', {}, { targetVersion: '4.16.20' })]);
    const [routed] = forecastRollout(input, { horizonDays: 2, routes }).clusters;
    expect(routed!.upgrades.map((u) => [u.from, u.version])).toEqual([
      ['4.14.38', '4.15.45'],
      ['4.15.45', '4.16.20'],
    ]);
    expect(routed!.finalVersion).toBe('4.16.20');
    // without the graph the forecast climbs greedily into the dead end
    const [greedy] = forecastRollout(input, { horizonDays: 2 }).clusters;
    expect(greedy!.upgrades.map((u) => u.version)).toEqual(['4.15.50']);
  });

  it.each([
    [['stable-4.15', 'stable-4.16', 'eus-4.16'], '4.15.45', 'stable-4.14', 'stable-4.15'],
    [['stable-4.15', 'stable-4.16', 'eus-4.16'], '4.15.45', 'eus-4.14', 'eus-4.16'],
    [['stable-4.15', 'fast-4.15', 'fast-4.16'], '4.15.45', 'fast-4.14', 'fast-4.15'],
    [['stable-4.15', 'stable-4.16'], '4.15.45', undefined, 'stable-4.15'],
    [['stable-4.15', 'stable-4.16'], '4.15.45', 'stable-4.16', null],
    [['candidate-4.15'], '4.15.45', 'stable-4.14', 'candidate-4.15'],
    [[], '4.15.45', 'stable-4.14', null],
  ])('channel for a hop in %j to %s from %s: %s', (channels, hop, current, expected) => {
    expect(channelForHop(channels, hop, current)).toBe(expected);
  });
});

/** A random graph over minors 4.10–4.15: each release has edges to some later ones of its minor and of the next. */
const graphArb = fc
  .array(fc.array(fc.integer({ min: 0, max: 30 }), { minLength: 1, maxLength: 4 }), { minLength: 6, maxLength: 6 })
  .chain((patchesByMinor) => {
    const versions = patchesByMinor.flatMap((patches, i) => [...new Set(patches)].map((p) => `4.${10 + i}.${p}`));
    const pairs = versions.flatMap((a) =>
      versions
        .filter((b) => {
          const va = parseVersion(a)!;
          const vb = parseVersion(b)!;
          return compareVersions(b, a) > 0 && vb.minor - va.minor <= 1;
        })
        .map((b) => [a, b] as [string, string]),
    );
    return fc.record({
      versions: fc.constant(versions),
      edges: fc.subarray(pairs),
    });
  });

describe('route-following properties', () => {
  it('the chosen version is on a route that reaches the target, and no run passes a target or a cap', () => {
    let routedHops = 0;
    fc.assert(
      fc.property(
        graphArb,
        fc.nat(),
        fc.integer({ min: 12, max: 15 }),
        fc.option(fc.integer({ min: 11, max: 15 }), { nil: undefined }),
        fc.boolean(),
        ({ versions, edges }, pick, targetMinor, capMinor, releaseTarget) => {
          const index = makeIndex({ nodes: versions, edges });
          const finder = routeFinder(index);
          const start = versions[pick % versions.length]!;
          const minorTarget = `4.${targetMinor}.*`;
          const exact = versions.filter((v) => v.startsWith(`4.${targetMinor}.`));
          const target = releaseTarget && exact.length ? exact[pick % exact.length]! : minorTarget;
          const conditions: Record<string, unknown> = { targetVersion: target };
          if (capMinor !== undefined) conditions.maxVersion = `4.${capMinor}.*`;
          const bounds: VersionBound[] = [target, conditions.maxVersion as string | undefined]
            .filter((b): b is string => b !== undefined)
            .map((raw) => parseVersionBound(raw) as VersionBound);
          // the cluster is offered every successor in the graph (greedy would take the highest)
          const offered = (v: string) => edges.filter(([a]) => a === v).map(([, b]) => b);
          let version = start;
          for (let hop = 0; hop < versions.length; hop++) {
            const input = testPlanInput([on(version, { availableUpgrades: offered(version), channel: undefined }, conditions)]);
            const [d] = decideWith(input, finder);
            if (d!.action !== 'upgrade') break;
            const chosen = d!.version!;
            expect(bounds.every((b) => withinBound(chosen, b))).toBe(true);
            const route = finder({ version }, boundsForCluster(input.organization, input.clusters[0]!.upgradePolicy!.conditions));
            if (route?.kind === 'route') {
              expect(chosen).toBe(route.nextHop);
              routedHops++;
              // the hop is no dead end: the route's target is reachable from it
              expect(isPathFound(solveUpgradePath(index, { from: chosen, to: route.target, allowConditional: false }))).toBe(true);
              expect(bounds.every((b) => withinBound(route.target, b))).toBe(true);
            }
            version = chosen;
          }
        },
      ),
      { numRuns: 300 },
    );
    // the generator does reach the routed case, not only the greedy one
    expect(routedHops).toBeGreaterThan(10);
  });

  it('with blocked releases the chosen hop is never blocked and lies on an unblocked route to an unblocked target; a wait means no such route', () => {
    let around = 0;
    let waits = 0;
    fc.assert(
      fc.property(
        graphArb,
        fc.nat(),
        fc.integer({ min: 12, max: 15 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        ({ versions, edges }, pick, targetMinor, blockPicks) => {
          const index = makeIndex({ nodes: versions, edges });
          const finder = routeFinder(index);
          const start = versions[pick % versions.length]!;
          const blocked = new Set(blockPicks.map((n) => versions[n % versions.length]!).filter((v) => v !== start));
          const patterns = [...blocked].map((v) => `^${v.replaceAll('.', '\\.')}$`);
          const target = `4.${targetMinor}.*`;
          const avoid = new Int32Array((index.size + 31) >>> 5);
          for (const v of blocked) {
            const id = index.idOf.get(v)!;
            avoid[id >>> 5]! |= 1 << (id & 31);
          }
          const unblockedRouteTo = (from: string) =>
            versions
              .filter((v) => v.startsWith(`4.${targetMinor}.`) && !blocked.has(v))
              .filter((to) => isPathFound(solveUpgradePath(index, { from, to, allowConditional: false }, avoid)));
          const offered = edges.filter(([a]) => a === start).map(([, b]) => b);
          const input = testPlanInput([on(start, { availableUpgrades: offered, channel: undefined }, { targetVersion: target })], {
            organization: { blockedVersions: patterns },
          });
          const [d] = decideWith(input, finder);
          const conditions = input.clusters[0]!.upgradePolicy!.conditions;
          const route = finder(
            { version: start },
            boundsForCluster(input.organization, conditions),
            blockedReleasesFor(input.organization, patterns),
          );
          if (d!.action === 'upgrade') expect(blocked.has(d!.version!)).toBe(false);
          if (route?.kind !== 'route') return;
          if (route.blockedHop) {
            waits++;
            expect(d).toMatchObject({ action: 'skip', reason: 'VERSION_BLOCKED' });
            expect(route.path).toContain(route.blockedHop.version);
            expect(blocked.has(route.blockedHop.version)).toBe(true);
            // a wait only when no route avoids every blocked release
            expect(unblockedRouteTo(start)).toEqual([]);
            return;
          }
          around += route.path.some((v) => blocked.has(v)) ? 0 : 1;
          expect(route.path.slice(1).filter((v) => blocked.has(v))).toEqual([]);
          if (d!.action === 'upgrade') {
            expect(d!.version).toBe(route.nextHop);
            // the hop is no dead end: an unblocked route leads from it to the unblocked target
            expect(unblockedRouteTo(route.nextHop)).toContain(route.target);
          }
        },
      ),
      { numRuns: 400 },
    );
    // the generator reaches both the routed-around and the all-blocked case
    expect(around).toBeGreaterThan(10);
    expect(waits).toBeGreaterThan(3);
  });
});

// Property tests of the decision engine (server/domain/plan) on random and malformed documents:
// it never throws; invalid input gives problems with paths; valid input gives decisions that keep
// the engine's safety invariants (mutexes, blocked versions, sector order).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RE2JS } from 're2js';
import { decideUpgrades } from '@/server/domain/plan/decide-upgrades';
import { parsePlanDocument } from '@/server/domain/plan/parse-plan-document';
import { findBlockingPattern } from '@/server/domain/plan/blocked-versions';
import { validatePlanInput } from '@/server/domain/plan/validate-plan-input';
import { compareVersions } from '@/server/domain/version/version';
import type { PlanInput, PlanParseResult } from '@/server/domain/plan/types';

const RUNS = 150;
const NOW = '2021-08-30T18:00:00Z';
const VERSIONS = ['4.12.1', '4.12.5', '4.12.10', '4.13.0-rc.1', '4.13.0', '4.13.2', '4.14.0'];
const WORKLOADS = ['wl-a', 'wl-b', 'wl-c'];
const MUTEXES = ['m1', 'm2', 'm3'];
const BLOCKED = ['^4\\.13\\.0$', '-rc\\.', '4\\.12\\.1', '^4\\.14', '(a+)+$'];
const CRONS = ['* * * * *', '*/5 * * * *', '0 13 * * 1-5', '7 18 * * *', '0 3 * * *'];
const SECTORS = ['dev', 'stage', 'prod', 'edge'];

function expectCleanResult(result: PlanParseResult): void {
  if (!result.ok) {
    expect(result.problems.length).toBeGreaterThan(0);
    for (const p of result.problems) {
      expect(typeof p.path).toBe('string');
      expect(typeof p.message).toBe('string');
      expect(p.message.length).toBeGreaterThan(0);
    }
  }
}

/** random sectors as a DAG: a sector depends only on sectors listed before it */
const arbSectors = fc.subarray(SECTORS, { minLength: 0 }).chain((names) =>
  fc.tuple(
    ...names.map((name, i) =>
      fc.record({
        name: fc.constant(name),
        dependencies: fc.subarray(names.slice(0, i)).map((ds) => ds.map((d) => ({ name: d }))),
        maxParallelUpgrades: fc.option(fc.constantFrom('1', '2', '50%', '34%', '100%', 3), { nil: undefined }),
      }),
    ),
  ),
);

function arbCluster(i: number, sectorNames: string[]) {
  return fc.record({
    name: fc.constant(`c${i}`),
    version: fc.constantFrom(...VERSIONS),
    availableUpgrades: fc.subarray(VERSIONS, { minLength: 2 }),
    healthy: fc.boolean(),
    upgradePolicy: fc.option(
      fc.record({
        workloads: fc.subarray(WORKLOADS, { minLength: 1 }),
        schedule: fc.constantFrom(...CRONS),
        conditions: fc.record({
          soakDays: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined, freq: 2 }),
          mutexes: fc.subarray(MUTEXES),
          sector: sectorNames.length ? fc.option(fc.constantFrom(...sectorNames), { nil: undefined }) : fc.constant(undefined),
          blockedVersions: fc.subarray(BLOCKED, { maxLength: 1 }),
        }),
      }),
      { nil: undefined, freq: 4 },
    ),
    // mostly absent, so the run hands out upgrades of its own
    currentUpgrade: fc.oneof(
      { arbitrary: fc.constant(undefined), weight: 4 },
      {
        arbitrary: fc.record({
          version: fc.constantFrom(...VERSIONS),
          nextRun: fc.constantFrom('2021-08-30T18:30:00Z', '2021-08-30T17:00:00Z'),
          state: fc.constantFrom('scheduled', 'started'),
        }),
        weight: 1,
      },
    ),
  });
}

const arbDocument = arbSectors.chain((sectors) => {
  const names = sectors.map((s) => s.name);
  return fc.integer({ min: 1, max: 12 }).chain((n) =>
    fc.record({
      now: fc.constant(NOW),
      organization: fc.record({
        name: fc.constant('org'),
        blockedVersions: fc.subarray(BLOCKED, { maxLength: 2 }),
        sectors: fc.constant(sectors),
      }),
      clusters: fc.tuple(...Array.from({ length: n }, (_, i) => arbCluster(i, names))),
      versionData: fc.record({
        versions: fc.dictionary(
          fc.constantFrom(...VERSIONS),
          fc.record({
            workloads: fc.dictionary(
              fc.constantFrom(...WORKLOADS),
              fc.record({ soakDays: fc.integer({ min: 0, max: 10 }), reporting: fc.constant([]) }),
            ),
          }),
        ),
      }),
    }),
  );
});

function limitOf(raw: { kind: 'count' | 'percent'; value: number }, n: number): number {
  if (raw.kind === 'count') return raw.value;
  const scaled = raw.value * n;
  let q = Math.floor(scaled / 100);
  const rem = scaled % 100;
  if (rem > 50 || (rem === 50 && q % 2 === 1)) q += 1;
  return Math.max(1, q);
}

/** Checks the contract's safety rules on one engine answer. */
function checkInvariants(input: PlanInput): number {
  const result = decideUpgrades(input);
  const byName = new Map(input.clusters.map((c) => [c.name, c]));
  const managed = input.clusters.filter((c) => c.upgradePolicy);
  expect(result.decisions.map((d) => d.cluster).sort()).toEqual(managed.map((c) => c.name).sort());
  const sectors = new Map(input.organization.sectors.map((s) => [s.name, s]));

  // holders in evaluation order: clusters with a current upgrade, then each upgrade given
  const holders: { name: string; sector: string | undefined; mutexes: string[] }[] = managed
    .filter((c) => c.currentUpgrade)
    .map((c) => ({ name: c.name, sector: c.upgradePolicy!.conditions.sector, mutexes: c.upgradePolicy!.conditions.mutexes }));

  for (const d of result.decisions) {
    if (d.action !== 'upgrade') continue;
    const c = byName.get(d.cluster)!;
    const policy = c.upgradePolicy!;
    const v = d.version!;
    // a real, newer, offered version
    expect(c.availableUpgrades).toContain(v);
    expect(compareVersions(v, c.version)).toBeGreaterThan(0);
    expect(c.currentUpgrade).toBeUndefined();
    // never a blocked version (checked with RE2 independently of the engine's cache)
    for (const pattern of [...input.organization.blockedVersions, ...policy.conditions.blockedVersions]) {
      expect(RE2JS.compile(pattern).matcher(v).find(), `${d.cluster} upgraded to ${v} blocked by ${pattern}`).toBe(false);
    }
    expect(findBlockingPattern(v, input.organization.blockedVersions, policy.conditions.blockedVersions)).toBeUndefined();
    // mutexes: shared only inside a sector with maxParallelUpgrades, and within its limit
    const sector = policy.conditions.sector ? sectors.get(policy.conditions.sector) : undefined;
    for (const m of policy.conditions.mutexes) {
      const others = holders.filter((h) => h.mutexes.includes(m));
      if (!sector?.maxParallelUpgrades) {
        expect(others, `${d.cluster} shares mutex ${m}`).toEqual([]);
      } else {
        expect(
          others.filter((h) => h.sector !== sector.name),
          `${d.cluster} shares ${m} outside its sector`,
        ).toEqual([]);
        const n = managed.filter(
          (o) => o.upgradePolicy!.conditions.sector === sector.name && o.upgradePolicy!.conditions.mutexes.includes(m),
        ).length;
        expect(others.length).toBeLessThan(limitOf(sector.maxParallelUpgrades, n));
      }
    }
    holders.push({ name: c.name, sector: policy.conditions.sector, mutexes: policy.conditions.mutexes });
    // sectors: the nearest dependency sectors running each workload already run >= v
    if (sector) {
      for (const w of policy.workloads) {
        const runners = (s: string) =>
          managed.filter((o) => o.upgradePolicy!.conditions.sector === s && o.upgradePolicy!.workloads.includes(w));
        const seen = new Set<string>();
        const queue = [...sector.dependencies];
        while (queue.length) {
          const dep = queue.shift()!;
          if (seen.has(dep)) continue;
          seen.add(dep);
          const rs = runners(dep);
          if (rs.length === 0) queue.push(...(sectors.get(dep)?.dependencies ?? []));
          for (const r of rs)
            expect(compareVersions(r.version, v), `${d.cluster} → ${v} ahead of ${r.name} (${r.version}) in ${dep}`).toBeGreaterThanOrEqual(
              0,
            );
        }
      }
    }
  }
  return result.decisions.filter((d) => d.action === 'upgrade').length;
}

describe('plan engine properties', () => {
  it('validates any JSON value without throwing: problems with paths, or an input the engine decides on', () => {
    fc.assert(
      fc.property(fc.anything({ maxDepth: 4 }), (raw) => {
        const result = validatePlanInput(raw);
        expectCleanResult(result);
        if (result.ok) decideUpgrades(result.input);
      }),
      { numRuns: RUNS },
    );
  });

  it('parses arbitrary and mutated YAML/JSON text without throwing', async () => {
    const sample = `now: "${NOW}"\norganization:\n  name: o\n  blockedVersions: ['-rc']\n  sectors: [{name: a}, {name: b, dependencies: [{name: a}]}]\nclusters:\n- name: x\n  version: 4.12.1\n  availableUpgrades: [4.12.5]\n  upgradePolicy: {workloads: [w], schedule: "* * * * *", conditions: {sector: b, mutexes: [m]}}\n`;
    const mutated = fc
      .array(fc.record({ at: fc.nat(sample.length), cut: fc.nat(8), insert: fc.string({ maxLength: 6 }) }), { minLength: 1, maxLength: 4 })
      .map((edits) => edits.reduce((text, e) => text.slice(0, e.at) + e.insert + text.slice(e.at + e.cut), sample));
    const text = fc.oneof(fc.string({ maxLength: 300 }), mutated, fc.json({ maxDepth: 4 }));
    await fc.assert(
      fc.asyncProperty(text, async (t) => {
        const result = await parsePlanDocument(t);
        expectCleanResult(result);
        if (result.ok) decideUpgrades(result.input);
      }),
      { numRuns: RUNS },
    );
  });

  it('reports an undefined YAML alias as a problem instead of throwing', async () => {
    for (const text of ['x: *a', '*a', `now: "${NOW}"\norganization: *org\nclusters: []`]) {
      expectCleanResult(await parsePlanDocument(text));
    }
  });

  it('keeps mutexes, blocked versions and sector order on random fleets', () => {
    let decided = 0;
    let upgrades = 0;
    fc.assert(
      fc.property(arbDocument, (doc) => {
        const result = validatePlanInput(JSON.parse(JSON.stringify(doc)) as unknown);
        expectCleanResult(result);
        if (!result.ok) return;
        decided++;
        upgrades += checkInvariants(result.input);
      }),
      { numRuns: RUNS },
    );
    // the generator must mostly produce valid fleets, or the invariants test nothing
    expect(decided).toBeGreaterThan(RUNS / 2);
    expect(upgrades).toBeGreaterThan(RUNS / 2);
  });

  it('matches a catastrophic-backtracking blocked-version regex in linear time (RE2)', () => {
    const doc = {
      now: NOW,
      organization: { name: 'o', blockedVersions: ['^(a+)+$', '(x+x+)+y'], sectors: [] },
      clusters: [
        {
          name: 'evil',
          version: '4.12.1',
          availableUpgrades: [`4.12.2-${'a'.repeat(5_000)}!`, `4.13.0-${'x'.repeat(5_000)}`],
          upgradePolicy: { workloads: ['w'], schedule: '* * * * *', conditions: {} },
        },
      ],
    };
    const started = performance.now();
    const result = validatePlanInput(doc);
    if (result.ok) decideUpgrades(result.input);
    const bare = RE2JS.compile('^(a+)+$')
      .matcher(`${'a'.repeat(100_000)}!`)
      .find();
    expect(bare).toBe(false);
    // catastrophic backtracking would take hours here, not seconds: a bound far from any load
    expect(performance.now() - started).toBeLessThan(30_000);
  });
});

import { describe, expect, it } from 'vitest';
import { parsePlanDocument } from './parse-plan-document';
import { findSectorCycles, MAX_REPORTED_CYCLES, validatePlanInput } from './validate-plan-input';
import type { Sector } from './types';

const RLO = '\u202E';

function baseDocument() {
  return {
    now: '2021-08-30T18:00:00Z',
    organization: {
      name: 'org',
      upgradePolicyAllowedWorkloads: ['wl'],
      upgradePolicyAllowedMutexes: ['m1'],
      sectors: [{ name: 'stage' }, { name: 'prod', dependencies: [{ name: 'stage' }] }],
    },
    clusters: [
      {
        name: 'c1',
        version: '4.12.17',
        upgradePolicy: { workloads: ['wl'], schedule: '* * * * *', conditions: { mutexes: ['m1'], sector: 'prod' } },
      },
    ],
  };
}

type Doc = ReturnType<typeof baseDocument>;

function problemsAfter(edit: (doc: Doc) => void) {
  const doc = baseDocument();
  edit(doc);
  const result = validatePlanInput(doc);
  expect(result.ok).toBe(false);
  return result.ok ? [] : result.problems;
}

describe('validatePlanInput: names pass the identifier rule', () => {
  it('accepts the base document', () => {
    expect(validatePlanInput(baseDocument()).ok).toBe(true);
  });

  it.each<[string, (doc: Doc) => void, string]>([
    ['a cluster name', (d) => (d.clusters[0]!.name = `c1${RLO}`), 'clusters[0].name'],
    ['a sector name', (d) => (d.organization.sectors[0]!.name = 'sta\u0000ge'), 'organization.sectors[0].name'],
    [
      'a sector dependency',
      (d) => (d.organization.sectors[1]!.dependencies = [{ name: `st${RLO}age` }]),
      'organization.sectors[1].dependencies[0]',
    ],
    ['a workload', (d) => (d.clusters[0]!.upgradePolicy.workloads = ['wl', 'w\u2066l']), 'clusters[0].upgradePolicy.workloads[1]'],
    [
      'a mutex',
      (d) => (d.clusters[0]!.upgradePolicy.conditions.mutexes = ['m1', 'm\uD800']),
      'clusters[0].upgradePolicy.conditions.mutexes[1]',
    ],
    [
      'a policy sector',
      (d) => (d.clusters[0]!.upgradePolicy.conditions.sector = `prod${RLO}`),
      'clusters[0].upgradePolicy.conditions.sector',
    ],
    [
      'an allowed workload',
      (d) => (d.organization.upgradePolicyAllowedWorkloads = ['wl', ' wl2']),
      'organization.upgradePolicyAllowedWorkloads[1]',
    ],
    [
      'an allowed mutex',
      (d) => (d.organization.upgradePolicyAllowedMutexes = ['m1', 'm2\n']),
      'organization.upgradePolicyAllowedMutexes[1]',
    ],
    ['the organization name', (d) => (d.organization.name = `org${RLO}`), 'organization.name'],
  ])('refuses %s with a control, bidi or surrogate character or outer whitespace', (_label, edit, path) => {
    const problems = problemsAfter(edit);
    expect(problems).toContainEqual({
      path,
      message: expect.stringMatching(/^not a valid name: (contains .* U\+[0-9A-F]{4} at position \d+|starts with|ends with)/) as unknown,
    });
    // reported once, not also as an unknown sector or a missing allow-list entry
    expect(problems.filter((p) => p.path === path)).toHaveLength(1);
  });

  it('refuses the name in a YAML plan document, written as an escape', async () => {
    const text = ['now: "2021-08-30T18:00:00Z"', 'clusters:', '- name: "c1\\u202E"', '  version: 4.12.17'].join('\n');
    const result = await parsePlanDocument(text);
    expect(result).toEqual({
      ok: false,
      problems: [
        { path: 'clusters[0].name', message: 'not a valid name: contains a bidirectional control character U+202E at position 3' },
      ],
    });
  });
});

describe('validatePlanInput: big documents', () => {
  it('finds the cycle in a chain of 100,000 sectors without overflowing the stack', () => {
    const sectors: Sector[] = Array.from({ length: 100_000 }, (_, i) => ({ name: `s${i}`, dependencies: [`s${(i + 1) % 100_000}`] }));
    const cycles = findSectorCycles(sectors);
    expect(cycles).toHaveLength(1);
    expect(cycles[0]).toHaveLength(100_001);
    expect(cycles[0]?.[0]).toBe('s0');
  });

  it(`names at most ${MAX_REPORTED_CYCLES} cycles`, () => {
    // every sector of a 1,000-chain also depends on the first: 1,000 cycles
    const sectors: Sector[] = Array.from({ length: 1000 }, (_, i) => ({
      name: `s${i}`,
      dependencies: i === 999 ? ['s0'] : [`s${i + 1}`, 's0'],
    }));
    expect(findSectorCycles(sectors)).toHaveLength(MAX_REPORTED_CYCLES);
  });

  it('reports duplicate workloads among 20,000 and a duplicate available upgrade once', () => {
    const doc = baseDocument();
    doc.organization.upgradePolicyAllowedWorkloads = Array.from({ length: 20_000 }, (_, i) => `w${i}`);
    doc.clusters[0]!.upgradePolicy.workloads = [...Array.from({ length: 20_000 }, (_, i) => `w${i}`), 'w7'];
    const problems = (() => {
      const r = validatePlanInput(doc);
      return r.ok ? [] : r.problems;
    })();
    expect(problems).toEqual([{ path: 'clusters[0].upgradePolicy.workloads[20000]', message: "duplicate workload 'w7'" }]);
  });
});

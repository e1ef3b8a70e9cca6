// The sector rule of label selectors: a managed cluster whose policy names no sector joins the
// first sector (in the organization's order) whose selector matches its labels. Table tests of
// the rule and of what the engine then decides, and properties over random fleets — a cluster
// never joins a sector its labels don't select, an explicit sector always wins, and a fleet
// without sector selectors is planned exactly as before.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideUpgrades } from '../plan/decide-upgrades';
import { testCluster, testPlanInput, type RawCluster } from '../plan/test-plan-input';
import { validatePlanInput } from '../plan/validate-plan-input';
import { matchesLabels, parseLabelSelector } from './label-selector';

const sectorsOf = (clusters: RawCluster[], sectors: Record<string, unknown>[]) =>
  Object.fromEntries(
    testPlanInput(clusters, { organization: { sectors } }).clusters.map((c) => [
      c.name,
      [c.upgradePolicy?.conditions.sector ?? null, c.upgradePolicy?.conditions.sectorSelector ?? null],
    ]),
  );

describe('sector selectors', () => {
  const sectors = [
    { name: 'stage', selector: 'env=stage' },
    { name: 'prod', selector: 'env=prod', dependencies: [{ name: 'stage' }] },
    { name: 'eu-prod', selector: 'env=prod,region=eu-west-1' },
    { name: 'manual' },
  ];
  it.each<[string, RawCluster, [string | null, string | null]]>([
    ['a matching cluster without a sector joins', testCluster('c', { labels: { env: 'stage' } }), ['stage', 'env=stage']],
    ['the first matching sector wins', testCluster('c', { labels: { env: 'prod', region: 'eu-west-1' } }), ['prod', 'env=prod']],
    ['a sector named in the policy always wins', testCluster('c', { labels: { env: 'prod' } }, { sector: 'manual' }), ['manual', null]],
    ['no matching selector: no sector', testCluster('c', { labels: { env: 'dev' } }), [null, null]],
    ['no labels: no sector', testCluster('c'), [null, null]],
    ['an unmanaged cluster joins none', { name: 'c', version: '4.12.17', labels: { env: 'prod' } }, [null, null]],
  ])('%s', (_, cluster, expected) => {
    expect(sectorsOf([cluster], sectors)['c']).toEqual(expected);
  });

  it('refuses an invalid sector selector at its path with the parser message', () => {
    const r = validatePlanInput({
      now: '2021-08-30T18:00:00Z',
      organization: { name: 'o', sectors: [{ name: 's', selector: 'env in prod' }] },
      clusters: [],
    });
    expect(r.ok ? [] : r.problems).toEqual([
      { path: 'organization.sectors[0].selector', message: "at character 8: expected '(' and a list of values, found 'prod'" },
    ]);
  });

  it('the engine holds a selected cluster behind the sector its selector put it in', () => {
    const clusters = [
      testCluster('stage-1', { version: '4.12.17', availableUpgrades: ['4.12.19'], labels: { env: 'stage' } }),
      testCluster('prod-1', { version: '4.12.17', availableUpgrades: ['4.12.19'], labels: { env: 'prod' } }),
    ];
    const decide = (withSelectors: boolean) =>
      decideUpgrades(
        testPlanInput(clusters, {
          organization: {
            sectors: [
              { name: 'stage', ...(withSelectors ? { selector: 'env=stage' } : {}) },
              { name: 'prod', ...(withSelectors ? { selector: 'env=prod' } : {}), dependencies: [{ name: 'stage' }] },
            ],
          },
        }),
      ).decisions.map((d) => [d.cluster, d.action, d.reason ?? d.version]);
    expect(decide(false)).toEqual([
      ['stage-1', 'upgrade', '4.12.19'],
      ['prod-1', 'upgrade', '4.12.19'],
    ]);
    expect(decide(true)).toEqual([
      ['stage-1', 'upgrade', '4.12.19'],
      ['prod-1', 'skip', 'SECTOR_BEHIND'],
    ]);
  });
});

const key = fc.constantFrom('env', 'team', 'region', 'example.com/tier');
const value = fc.constantFrom('prod', 'stage', 'dev', 'a', 'b');
const labels = fc.dictionary(key, value, { maxKeys: 4 });
const selectorText = fc.oneof(
  fc.tuple(key, value).map(([k, v]) => `${k}=${v}`),
  fc.tuple(key, value).map(([k, v]) => `${k}!=${v}`),
  fc.tuple(key, fc.uniqueArray(value, { minLength: 1, maxLength: 3 })).map(([k, vs]) => `${k} in (${vs.join(',')})`),
  fc.tuple(key, value).map(([k, v]) => `${k} notin (${v})`),
  key,
  key.map((k) => `!${k}`),
);
const fleet = fc.record({
  sectors: fc.array(
    fc.option(
      fc.array(selectorText, { minLength: 1, maxLength: 2 }).map((parts) => parts.join(',')),
      { nil: undefined },
    ),
    {
      minLength: 1,
      maxLength: 4,
    },
  ),
  clusters: fc.array(
    fc.record({
      labels,
      managed: fc.boolean(),
      named: fc.option(fc.nat(3), { nil: undefined }),
      version: fc.constantFrom('4.12.17', '4.12.19'),
    }),
    { maxLength: 8 },
  ),
});

type Fleet = {
  sectors: (string | undefined)[];
  clusters: { labels: Record<string, string>; managed: boolean; named?: number; version: string }[];
};

/** The fleet's plan document: sector i is `s<i>`; a cluster names sector `named` when it exists. */
function documentOf(f: Fleet, withSelectors = true) {
  const sectors = f.sectors.map((selector, i) => ({ name: `s${i}`, ...(selector !== undefined && withSelectors ? { selector } : {}) }));
  const clusters = f.clusters.map((c, i) => {
    const sector = c.named !== undefined && c.named < sectors.length ? `s${c.named}` : undefined;
    const base = { name: `c${i}`, version: c.version, availableUpgrades: ['4.12.19', '4.12.20'], labels: c.labels };
    return c.managed
      ? { ...base, upgradePolicy: { workloads: ['wl'], schedule: '* * * * *', conditions: { soakDays: 0, ...(sector ? { sector } : {}) } } }
      : base;
  });
  return { now: '2021-08-30T18:00:00Z', organization: { name: 'o', sectors }, clusters };
}

describe('sector selector properties', () => {
  it('a cluster never joins a sector its labels do not select, and a sector its policy names always wins', () => {
    fc.assert(
      fc.property(fleet, (f) => {
        const r = validatePlanInput(documentOf(f));
        if (!r.ok) throw new Error(JSON.stringify(r.problems));
        r.input.clusters.forEach((c, i) => {
          const raw = f.clusters[i]!;
          const sector = c.upgradePolicy?.conditions.sector;
          const named = raw.named !== undefined && raw.named < f.sectors.length ? `s${raw.named}` : undefined;
          if (!raw.managed) expect(sector).toBeUndefined();
          else if (named) expect(sector).toBe(named);
          else {
            // the first selecting sector, or none when no selector matches
            const first = f.sectors.findIndex((text) => {
              if (text === undefined) return false;
              const parsed = parseLabelSelector(text);
              return parsed.ok && matchesLabels(parsed.selector, raw.labels);
            });
            expect(sector).toBe(first === -1 ? undefined : `s${first}`);
          }
        });
      }),
    );
  });

  it('a fleet whose sectors carry no selector is decided exactly as without labels', () => {
    fc.assert(
      fc.property(fleet, (f) => {
        const withLabels = validatePlanInput(documentOf(f, false));
        const doc = documentOf(f, false);
        const withoutLabels = validatePlanInput({ ...doc, clusters: doc.clusters.map(({ labels: _labels, ...c }) => c) });
        if (!withLabels.ok || !withoutLabels.ok) throw new Error('invalid fleet');
        expect(decideUpgrades(withLabels.input)).toEqual(decideUpgrades(withoutLabels.input));
      }),
    );
  });
});

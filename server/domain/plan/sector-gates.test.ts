// Approval gates and a sector's notBefore (beyond the reference upgrade service): table tests of
// the engine's verdicts and the validation, and a property over random fleets — no cluster of a
// gated sector is ever given (or keeps scheduled) an upgrade to a version not approved for it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateFleet, NO_GATES } from '../evaluation/evaluate-fleet';
import { listBlockers } from '../evaluation/blockers';
import { findNeverUpgrades } from '../evaluation/never-upgrades';
import { decideUpgrades, PlanRun } from './decide-upgrades';
import { lintPolicies } from './lint-policies';
import { approvalKey, parseNotBefore } from './sector-gates';
import { testCluster, testPlanInput, TEST_NOW, type RawCluster } from './test-plan-input';
import { validatePlanInput } from './validate-plan-input';

const decide = (clusters: RawCluster[], extra: Record<string, unknown> = {}) =>
  decideUpgrades(testPlanInput(clusters, extra)).decisions.map((d) => [d.cluster, d.action, d.reason ?? d.version ?? '', d.message]);

const chain = (gates: Record<string, Record<string, unknown>> = {}) => ({
  sectors: [
    { name: 'stage', ...gates.stage },
    { name: 'prod', dependencies: [{ name: 'stage' }], ...gates.prod },
    { name: 'edge', dependencies: [{ name: 'prod' }], ...gates.edge },
  ],
});

describe('parseNotBefore', () => {
  it.each([
    // Zurich is UTC+1 in November, UTC+2 in July
    ['2026-11-29T20:00 Europe/Zurich', '2026-11-29T19:00:00.000Z'],
    ['2026-07-05 20:00 Europe/Zurich', '2026-07-05T18:00:00.000Z'],
    ['2026-11-29T19:00:00Z', '2026-11-29T19:00:00.000Z'],
    ['2026-11-29T20:00:00+01:00', '2026-11-29T19:00:00.000Z'],
    // the first of the two 02:30 of the autumn overlap
    ['2026-10-25T02:30 Europe/Zurich', '2026-10-25T00:30:00.000Z'],
  ])('%s is %s', (raw, iso) => {
    const nb = parseNotBefore(raw);
    expect(typeof nb === 'string' ? nb : new Date(nb.at).toISOString()).toBe(iso);
  });

  it.each([
    ['2026-11-29T20:00', 'is not a local time and a time zone'],
    ['Sunday 20:00', 'is not a local time and a time zone'],
    ['2026-11-29T20:00 Mars/Olympus', "unknown time zone 'Mars/Olympus'"],
    ['2026-03-29T02:30 Europe/Zurich', 'does not exist in Europe/Zurich'],
    ['2026-02-30T20:00 UTC', 'not a valid date'],
  ])('refuses %j', (raw, fragment) => {
    const nb = parseNotBefore(raw);
    expect(nb).toEqual(expect.stringContaining(fragment));
  });
});

describe('validation of approval and notBefore', () => {
  it('reports each problem at its path, with the likely key for a misspelt one', () => {
    const r = validatePlanInput({
      now: TEST_NOW,
      organization: {
        name: 'org',
        sectors: [
          { name: 'a', approval: { befor: true } },
          { name: 'b', approval: { before: 'yes', after: true } },
          { name: 'c', approval: true, notBefore: 'next sunday' },
        ],
      },
      clusters: [testCluster('x')],
      approvals: [
        { sector: 'zz', version: '4.12.19' },
        { sector: 'a', version: '4.12', kind: 'during' },
      ],
    });
    expect(r.ok ? [] : r.problems).toEqual([
      { path: 'organization.sectors[0].approval.befor', message: "unknown key 'befor': did you mean 'before'?" },
      { path: 'organization.sectors[1].approval.before', message: "must be true or false, got 'yes'" },
      { path: 'organization.sectors[2].approval', message: 'must be an object {before: true|false, after: true|false}, got boolean true' },
      {
        path: 'organization.sectors[2].notBefore',
        message:
          "'next sunday' is not a local time and a time zone ('2026-11-29T20:00 Europe/Zurich') or an instant with its offset ('2026-11-29T19:00:00Z')",
      },
      { path: 'approvals[0].sector', message: "unknown sector 'zz'" },
      { path: 'approvals[1].version', message: "not a semantic version: '4.12'" },
      { path: 'approvals[1].kind', message: "must be one of before, after, got 'during'" },
    ]);
  });

  it('a sector with both gates false has none', () => {
    const input = testPlanInput([testCluster('x')], { organization: { sectors: [{ name: 'a', approval: { before: false } }] } });
    expect(input.organization.sectors[0]!.approval).toBeUndefined();
  });
});

describe('the engine with approval gates', () => {
  it('holds a version into a before-gated sector with AWAITING_APPROVAL naming sector and version, until approved', () => {
    const clusters = [testCluster('p1', {}, { sector: 'prod' })];
    const organization = chain({ prod: { approval: { before: true } } });
    expect(decide(clusters, { organization })).toEqual([
      ['p1', 'skip', 'AWAITING_APPROVAL', '4.12.19 into sector prod awaits approval (approval.before of sector prod)'],
    ]);
    expect(decideUpgrades(testPlanInput(clusters, { organization })).decisions[0]!.version).toBe('4.12.19');
    const approved = decide(clusters, { organization, approvals: [{ sector: 'prod', version: '4.12.19', kind: 'before' }] });
    expect(approved.map((d) => d.slice(0, 3))).toEqual([['p1', 'upgrade', '4.12.19']]);
  });

  it('an approval counts only for its sector, version and kind', () => {
    const clusters = [testCluster('p1', {}, { sector: 'prod' })];
    const organization = chain({ prod: { approval: { before: true } } });
    for (const approvals of [
      [{ sector: 'stage', version: '4.12.19', kind: 'before' }],
      [{ sector: 'prod', version: '4.12.18', kind: 'before' }],
      [{ sector: 'prod', version: '4.12.19', kind: 'after' }],
    ]) {
      expect(decide(clusters, { organization, approvals }).map((d) => d[2])).toEqual(['AWAITING_APPROVAL']);
    }
  });

  it('takes a lower approved version when the highest awaits approval, and says why not the higher', () => {
    const clusters = [testCluster('p1', { availableUpgrades: ['4.12.18', '4.12.19'] }, { sector: 'prod' })];
    const out = decide(clusters, {
      organization: chain({ prod: { approval: { before: true } } }),
      approvals: [{ sector: 'prod', version: '4.12.18' }],
    });
    expect(out[0]!.slice(0, 3)).toEqual(['p1', 'upgrade', '4.12.18']);
    expect(out[0]![3]).toContain('higher 4.12.19 not eligible (4.12.19 into sector prod awaits approval');
  });

  it('an after-gate holds the sectors following the gated one (directly or not) until its completion is approved', () => {
    const clusters = [
      testCluster('s1', { version: '4.12.19', availableUpgrades: [] }, { sector: 'stage' }),
      testCluster('p1', {}, { sector: 'prod' }),
      testCluster('e1', {}, { sector: 'edge' }),
      testCluster('x1'),
    ];
    const organization = chain({ stage: { approval: { after: true } } });
    expect(decide(clusters, { organization }).map((d) => d.slice(0, 3))).toEqual([
      ['p1', 'skip', 'AWAITING_APPROVAL'],
      // edge waits for prod to run it first: the sector rule comes before the gate
      ['e1', 'skip', 'SECTOR_BEHIND'],
      ['x1', 'upgrade', '4.12.19'],
      ['s1', 'skip', 'NO_AVAILABLE_UPGRADES'],
    ]);
    // with prod empty, edge follows stage through it, and so does its gate
    const withoutProd = clusters.filter((c) => c.name !== 'p1');
    expect(decide(withoutProd, { organization }).map((d) => d.slice(0, 3))).toEqual([
      ['e1', 'skip', 'AWAITING_APPROVAL'],
      ['x1', 'upgrade', '4.12.19'],
      ['s1', 'skip', 'NO_AVAILABLE_UPGRADES'],
    ]);
    expect(decide(clusters, { organization })[0]![3]).toBe(
      "4.12.19 awaits approval of sector stage's completion (approval.after of sector stage)",
    );
    const approved = decide(clusters, { organization, approvals: [{ sector: 'stage', version: '4.12.19', kind: 'after' }] });
    // edge still waits for prod to run it: the sector rule, not the gate
    expect(approved.map((d) => d.slice(0, 3))).toEqual([
      ['p1', 'upgrade', '4.12.19'],
      ['e1', 'skip', 'SECTOR_BEHIND'],
      ['x1', 'upgrade', '4.12.19'],
      ['s1', 'skip', 'NO_AVAILABLE_UPGRADES'],
    ]);
  });

  it('sector order and soak come before the approval in the verdict', () => {
    const organization = chain({ prod: { approval: { before: true } } });
    const behind = decide([testCluster('s1', { availableUpgrades: [] }, { sector: 'stage' }), testCluster('p1', {}, { sector: 'prod' })], {
      organization,
    });
    expect(behind.map((d) => d.slice(0, 3))).toEqual([
      ['s1', 'skip', 'NO_AVAILABLE_UPGRADES'],
      ['p1', 'skip', 'SECTOR_BEHIND'],
    ]);
    const unsoaked = decide([testCluster('p1', {}, { sector: 'prod', soakDays: 2 })], { organization });
    expect(unsoaked.map((d) => d[2])).toEqual(['NOT_SOAKED']);
  });

  it('cancels a scheduled upgrade whose approval is gone (revoked, or a gate set since), not a started one', () => {
    const organization = chain({ prod: { approval: { before: true } } });
    const scheduled = { currentUpgrade: { version: '4.12.19', nextRun: '2021-08-30T19:00:00Z', state: 'scheduled' } };
    expect(decide([testCluster('p1', scheduled, { sector: 'prod' })], { organization }).map((d) => d.slice(0, 3))).toEqual([
      ['p1', 'cancel', 'AWAITING_APPROVAL'],
    ]);
    const started = { currentUpgrade: { version: '4.12.19', nextRun: '2021-08-30T17:00:00Z', state: 'started' } };
    expect(decide([testCluster('p1', started, { sector: 'prod' })], { organization }).map((d) => d[2])).toEqual(['UPGRADE_PENDING']);
  });

  it('without gates, approvals change nothing', () => {
    const clusters = [testCluster('p1', {}, { sector: 'prod' })];
    const plain = decide(clusters, { organization: chain() });
    expect(decide(clusters, { organization: chain(), approvals: [{ sector: 'prod', version: '4.12.19' }] })).toEqual(plain);
  });
});

describe('the engine with notBefore', () => {
  // TEST_NOW is 2021-08-30T18:00:00Z; the schedule fires every minute, so the slot is 18:07
  it('holds every start of the sector before its notBefore with NOT_BEFORE and the next allowed instant', () => {
    const clusters = [testCluster('p1', {}, { sector: 'prod' }), testCluster('s1', {}, { sector: 'stage' })];
    const out = decide(clusters, { organization: chain({ prod: { notBefore: '2021-08-30T22:00 Europe/Zurich' } }) });
    expect(out).toEqual([
      ['p1', 'skip', 'NOT_BEFORE', 'sector prod starts no upgrade before 2021-08-30T20:00:00Z (notBefore 2021-08-30T22:00 Europe/Zurich)'],
      ['s1', 'upgrade', '4.12.19', 'upgrade to 4.12.19 at 2021-08-30T18:07:00Z'],
    ]);
  });

  it('lets a start at or after the moment through, and holds nothing once it has passed', () => {
    const clusters = [testCluster('p1', {}, { sector: 'prod' })];
    expect(decide(clusters, { organization: chain({ prod: { notBefore: '2021-08-30T18:07:00Z' } }) }).map((d) => d[1])).toEqual([
      'upgrade',
    ]);
    expect(decide(clusters, { organization: chain({ prod: { notBefore: '2021-08-30T18:08:00Z' } }) }).map((d) => d[2])).toEqual([
      'NOT_BEFORE',
    ]);
    expect(decide(clusters, { organization: chain({ prod: { notBefore: '2020-01-01T00:00:00Z' } }) }).map((d) => d[1])).toEqual([
      'upgrade',
    ]);
  });

  it('cancels a scheduled upgrade whose slot is before a notBefore set since', () => {
    const scheduled = { currentUpgrade: { version: '4.12.19', nextRun: '2021-08-30T19:00:00Z', state: 'scheduled' } };
    const out = decide([testCluster('p1', scheduled, { sector: 'prod' })], {
      organization: chain({ prod: { notBefore: '2021-08-31T00:00:00Z' } }),
    });
    expect(out.map((d) => d.slice(0, 3))).toEqual([['p1', 'cancel', 'NOT_BEFORE']]);
  });
});

describe('why not, and never-upgrades', () => {
  it('lists the notBefore and the approval as blockers that hold, and never calls a gated cluster "never"', () => {
    const input = testPlanInput([testCluster('p1', {}, { sector: 'prod' })], {
      organization: chain({ prod: { approval: { before: true }, notBefore: '2099-01-01T00:00:00Z' } }),
    });
    const evaluation = evaluateFleet(input, NO_GATES, { explain: true }).clusters.get('p1')!;
    const blockers = listBlockers(evaluation);
    expect(blockers.all.map((b) => [b.rule, b.clearsByNextRun])).toEqual([
      ['notBefore', false],
      ['approval', false],
    ]);
    expect(blockers.holding).toBe(0);
    expect(findNeverUpgrades(new PlanRun(input)).size).toBe(0);
  });
});

describe('lint: sector gates that hold nothing', () => {
  it('warns of an after-gate no sector follows and of a notBefore already past, not of gates that hold', () => {
    const input = testPlanInput([testCluster('p1', {}, { sector: 'prod' })], {
      organization: chain({
        stage: { approval: { after: true }, notBefore: '2099-01-01T00:00:00Z' },
        edge: { approval: { after: true }, notBefore: '2021-08-30T17:59 UTC' },
      }),
    });
    expect(lintPolicies(input).filter((w) => w.code === 'APPROVAL_AFTER_GATES_NOTHING' || w.code === 'NOT_BEFORE_PASSED')).toEqual([
      {
        code: 'APPROVAL_AFTER_GATES_NOTHING',
        path: 'organization.sectors[2].approval.after',
        message: 'approval.after of sector edge holds nothing: no sector depends on it',
      },
      {
        code: 'NOT_BEFORE_PASSED',
        path: 'organization.sectors[2].notBefore',
        message: 'notBefore 2021-08-30T17:59 UTC of sector edge has passed: it holds nothing any more',
      },
    ]);
  });
});

// Random fleets over three sectors with random gates and approvals: whatever the engine decides,
// no upgrade (new, or scheduled and kept) passes an unapproved gate.
const VERSIONS = ['4.12.17', '4.12.18', '4.12.19', '4.13.0'];
const arbFleet = fc.record({
  gates: fc.array(fc.record({ before: fc.boolean(), after: fc.boolean() }), { minLength: 3, maxLength: 3 }),
  approvals: fc.array(
    fc.record({
      sector: fc.constantFrom('stage', 'prod', 'edge'),
      version: fc.constantFrom(...VERSIONS),
      kind: fc.constantFrom('before', 'after'),
    }),
    { maxLength: 8 },
  ),
  clusters: fc.array(
    fc.record({
      sector: fc.constantFrom('stage', 'prod', 'edge', undefined),
      version: fc.constantFrom('4.12.16', '4.12.17'),
      offered: fc.subarray(VERSIONS, { minLength: 1 }),
      scheduled: fc.option(fc.constantFrom(...VERSIONS), { nil: undefined }),
    }),
    { minLength: 1, maxLength: 10 },
  ),
});

describe('properties', () => {
  it('no cluster in a gated sector is ever decided for (or keeps scheduled) a version not approved for it', () => {
    let upgrades = 0;
    let held = 0;
    fc.assert(
      fc.property(arbFleet, (f) => {
        const names = ['stage', 'prod', 'edge'];
        const organization = {
          sectors: names.map((name, i) => ({
            name,
            ...(i > 0 ? { dependencies: [{ name: names[i - 1] }] } : {}),
            approval: f.gates[i],
          })),
        };
        const clusters = f.clusters.map((c, i) =>
          testCluster(
            `c${i}`,
            {
              version: c.version,
              availableUpgrades: c.offered,
              ...(c.scheduled ? { currentUpgrade: { version: c.scheduled, nextRun: '2021-08-30T19:00:00Z', state: 'scheduled' } } : {}),
            },
            c.sector ? { sector: c.sector } : {},
          ),
        );
        const input = testPlanInput(clusters, { organization, approvals: f.approvals });
        const approved = new Set(f.approvals.map((a) => approvalKey(a.kind, a.sector, a.version)));
        // the gates a cluster of sector i passes: its own before-gate, the after-gates of every sector before it
        const required = (sectorIndex: number, version: string) => [
          ...(f.gates[sectorIndex]!.before ? [approvalKey('before', names[sectorIndex]!, version)] : []),
          ...names.slice(0, sectorIndex).flatMap((n, j) => (f.gates[j]!.after ? [approvalKey('after', n, version)] : [])),
        ];
        const { decisions } = decideUpgrades(input);
        for (const d of decisions) {
          const raw = f.clusters[Number(d.cluster.slice(1))]!;
          const keepsScheduled = raw.scheduled !== undefined && d.action === 'skip' && d.reason === 'UPGRADE_PENDING';
          const version = d.action === 'upgrade' ? d.version! : keepsScheduled ? raw.scheduled! : undefined;
          if (d.action === 'upgrade') upgrades++;
          if (d.reason === 'AWAITING_APPROVAL') held++;
          if (version === undefined || raw.sector === undefined) continue;
          for (const key of required(names.indexOf(raw.sector), version)) {
            expect(approved.has(key), `${d.cluster} (${raw.sector}) → ${version} without ${key.replaceAll('\u0000', ' ')}`).toBe(true);
          }
        }
      }),
      { numRuns: 400 },
    );
    expect(upgrades).toBeGreaterThan(100);
    expect(held).toBeGreaterThan(50);
  });
});

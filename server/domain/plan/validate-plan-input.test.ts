import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePlanDocument } from './parse-plan-document';
import { uniqueInOrder, validatePlanInput } from './validate-plan-input';

const NOW = '2021-08-30T18:00:00Z';

function base(): Record<string, unknown> & { organization: Record<string, unknown>; clusters: Record<string, unknown>[] } {
  return {
    now: NOW,
    organization: {
      name: 'org',
      upgradePolicyAllowedWorkloads: ['wl', 'batch'],
      upgradePolicyAllowedMutexes: ['m1'],
      sectors: [{ name: 'stage' }, { name: 'prod', maxParallelUpgrades: '50%', dependencies: [{ name: 'stage' }] }],
    },
    clusters: [
      {
        name: 'c0',
        version: '4.12.17',
        availableUpgrades: ['4.12.19'],
        upgradePolicy: { workloads: ['wl'], schedule: '* * * * *', conditions: { soakDays: 1, mutexes: ['m1'], sector: 'stage' } },
      },
      { name: 'c1', version: '4.12.18', availableUpgrades: [] },
    ],
  };
}

type Doc = ReturnType<typeof base>;
const policy = (d: Doc) => (d.clusters[0] as { upgradePolicy: Record<string, unknown> }).upgradePolicy;
const conditions = (d: Doc) => policy(d).conditions as Record<string, unknown>;

function problemPaths(doc: unknown, now?: string): string[] {
  const r = validatePlanInput(doc, now === undefined ? {} : { now });
  return r.ok ? [] : r.problems.map((p) => p.path);
}

describe('validatePlanInput', () => {
  it('accepts a valid document and normalizes the schedule to object form', () => {
    const r = validatePlanInput(base());
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.input.clusters[0]?.upgradePolicy?.schedule).toEqual({ cron: '* * * * *', location: 'UTC', suspend: false });
      expect(r.input.clusters[1]?.healthy).toBe(true);
    }
  });

  it.each<[string, unknown, string]>([
    ['a number', 4.12, 'number 4.12'],
    ['a missing value', undefined, 'undefined'],
    ['a function (not its source text)', () => 'source text', 'function'],
  ])('names what it got instead of a version: %s', (_, version, got) => {
    const doc = base();
    doc.clusters[1]!.version = version;
    const r = validatePlanInput(doc);
    expect(r.ok ? [] : r.problems.filter((p) => p.path === 'clusters[1].version').map((p) => p.message)).toEqual([
      `not a semantic version: ${got}`,
    ]);
  });

  it.each<[string, (d: Doc) => void, string]>([
    ['a missing now', (d) => delete d.now, 'now'],
    ['a bad now', (d) => (d.now = 'yesterday'), 'now'],
    ['a duplicate cluster name (at the second)', (d) => ((d.clusters[1] as Record<string, unknown>).name = 'c0'), 'clusters[1].name'],
    ['a duplicate sector name', (d) => (d.organization.sectors as unknown[]).push({ name: 'stage' }), 'organization.sectors[2].name'],
    ['a non-semver version', (d) => ((d.clusters[1] as Record<string, unknown>).version = '4.12'), 'clusters[1].version'],
    [
      'a non-semver available upgrade',
      (d) => ((d.clusters[0] as Record<string, unknown>).availableUpgrades = ['4.12.19', 'latest']),
      'clusters[0].availableUpgrades[1]',
    ],
    ['empty workloads', (d) => (policy(d).workloads = []), 'clusters[0].upgradePolicy.workloads'],
    ['a duplicate workload', (d) => (policy(d).workloads = ['wl', 'wl']), 'clusters[0].upgradePolicy.workloads[1]'],
    ['a workload missing from the allow-list', (d) => (policy(d).workloads = ['wl', 'bach']), 'clusters[0].upgradePolicy.workloads[1]'],
    [
      'a mutex missing from the allow-list',
      (d) => (conditions(d).mutexes = ['m1', 'm2']),
      'clusters[0].upgradePolicy.conditions.mutexes[1]',
    ],
    ['negative soakDays', (d) => (conditions(d).soakDays = -5), 'clusters[0].upgradePolicy.conditions.soakDays'],
    ['an invalid cron', (d) => (policy(d).schedule = '0 48 * * 1-5'), 'clusters[0].upgradePolicy.schedule'],
    ['a cron with a seconds field', (d) => (policy(d).schedule = '0 0 12 * * *'), 'clusters[0].upgradePolicy.schedule'],
    [
      'an unknown time zone',
      (d) => (policy(d).schedule = { cron: '0 1 * * *', location: 'Mars/Olympus' }),
      'clusters[0].upgradePolicy.schedule.location',
    ],
    [
      'a bad isoWeek',
      (d) => (policy(d).schedule = { cron: '0 1 * * *', isoWeek: '@weekly' }),
      'clusters[0].upgradePolicy.schedule.isoWeek',
    ],
    ['an invalid regex', (d) => (d.organization.blockedVersions = ['ok', '4.12.(']), 'organization.blockedVersions[1]'],
    [
      'a lookahead regex',
      (d) => (conditions(d).blockedVersions = ['4(?=\\.12)']),
      'clusters[0].upgradePolicy.conditions.blockedVersions[0]',
    ],
    [
      'a backreference regex',
      (d) => (conditions(d).blockedVersions = ['(4)\\1']),
      'clusters[0].upgradePolicy.conditions.blockedVersions[0]',
    ],
    ['an unknown sector', (d) => (conditions(d).sector = 'stg'), 'clusters[0].upgradePolicy.conditions.sector'],
    [
      'an unknown sector dependency',
      (d) => (d.organization.sectors = [{ name: 'a', dependencies: [{ name: 'b' }] }]),
      'organization.sectors[0].dependencies[0]',
    ],
    [
      'a sector cycle',
      (d) =>
        (d.organization.sectors = [
          { name: 'a', dependencies: [{ name: 'b' }] },
          { name: 'b', dependencies: [{ name: 'a' }] },
        ]),
      'organization.sectors',
    ],
    [
      'maxParallelUpgrades 0',
      (d) => (d.organization.sectors = [{ name: 'stage', maxParallelUpgrades: '0' }]),
      'organization.sectors[0].maxParallelUpgrades',
    ],
    [
      'maxParallelUpgrades 0%',
      (d) => (d.organization.sectors = [{ name: 'stage', maxParallelUpgrades: '0%' }]),
      'organization.sectors[0].maxParallelUpgrades',
    ],
    [
      'maxParallelUpgrades 101%',
      (d) => (d.organization.sectors = [{ name: 'stage', maxParallelUpgrades: '101%' }]),
      'organization.sectors[0].maxParallelUpgrades',
    ],
    [
      'a bad currentUpgrade state',
      (d) => ((d.clusters[1] as Record<string, unknown>).currentUpgrade = { version: '4.12.19', nextRun: NOW, state: 'done' }),
      'clusters[1].currentUpgrade.state',
    ],
    [
      'a bad currentUpgrade nextRun',
      (d) => ((d.clusters[1] as Record<string, unknown>).currentUpgrade = { version: '4.12.19', nextRun: 'soon', state: 'scheduled' }),
      'clusters[1].currentUpgrade.nextRun',
    ],
    ['a checkIn after now', (d) => (d.versionData = { checkIn: '2021-08-31T00:00:00Z', versions: {} }), 'versionData.checkIn'],
  ])('rejects %s at its path', (_what, mutate, path) => {
    const doc = base();
    mutate(doc);
    expect(problemPaths(doc)).toContain(path);
  });

  it('reports every problem, not just the first', () => {
    const doc = base();
    conditions(doc).soakDays = -1;
    (doc.clusters[1] as Record<string, unknown>).version = 'x';
    doc.organization.sectors = [{ name: 'stage', maxParallelUpgrades: 0 }];
    expect(problemPaths(doc)).toEqual(
      expect.arrayContaining([
        'clusters[0].upgradePolicy.conditions.soakDays',
        'clusters[1].version',
        'organization.sectors[0].maxParallelUpgrades',
      ]),
    );
  });

  it.each([[2], ['2'], ['50%'], ['100%']])('accepts maxParallelUpgrades %s', (mpu) => {
    const doc = base();
    doc.organization.sectors = [{ name: 'stage', maxParallelUpgrades: mpu }];
    expect(problemPaths(doc)).toEqual([]);
  });

  it('lets --now override (or stand in for) the document now', () => {
    const doc = base();
    delete doc.now;
    const r = validatePlanInput(doc, { now: '2021-08-31T10:00:00+02:00' });
    expect(r.ok && r.input.now).toBe('2021-08-31T08:00:00Z');
  });
});

describe('parsePlanDocument', () => {
  it('reads YAML and reports YAML syntax errors with their line', async () => {
    const text = [
      'now: "2021-08-30T18:00:00Z"',
      'clusters:',
      '- name: c1',
      '  version: 4.12.17',
      '  upgradePolicy:',
      '    workloads: [wl]',
      '   schedule: "* * * * *"',
      '',
    ].join('\n');
    const r = await parsePlanDocument(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems.map((p) => p.line)).toContain(7);
  });

  it('reads JSON when the first non-blank character is { and reports the syntax error line', async () => {
    const r = await parsePlanDocument('\n  {\n "now": "2021-08-30T18:00:00Z",\n "clusters": [,]\n}');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems[0]?.line).toBe(4);
  });

  it('keeps YAML versions and times as strings', async () => {
    const r = await parsePlanDocument(
      'now: 2021-08-30T18:00:00Z\nclusters:\n- name: c\n  version: 4.12.17\n  availableUpgrades: [4.12.19]\n',
    );
    expect(r.ok && r.input.clusters[0]?.availableUpgrades).toEqual(['4.12.19']);
  });

  it('rejects a top-level list', async () => {
    expect((await parsePlanDocument('[1, 2]')).ok).toBe(false);
  });

  it('reads cluster labels from YAML and keeps a document without labels label-less', async () => {
    const text = [
      'now: 2021-08-30T18:00:00Z',
      'clusters:',
      '- name: c1',
      '  version: 4.12.17',
      '  labels: {env: prod, example.com/team: sre, empty: ""}',
      '- name: c2',
      '  version: 4.12.17',
      '',
    ].join('\n');
    const r = await parsePlanDocument(text);
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.input.clusters[0]?.labels).toEqual({ env: 'prod', 'example.com/team': 'sre', empty: '' });
    expect(r.input.clusters[1]).not.toHaveProperty('labels');
  });
});

describe('cluster labels', () => {
  it.each<[unknown, string, string]>([
    [['env=prod'], 'clusters[1].labels', 'must be a map of label keys to values, got a list'],
    [{ env: 4 }, 'clusters[1].labels["env"]', 'must be a string, got number 4'],
    [{ Env_: 'x' }, 'clusters[1].labels["Env_"]', 'not a valid label key: the name must consist of alphanumeric'],
    [{ 'Example.com/x': 'y' }, 'clusters[1].labels["Example.com/x"]', 'not a valid label key: the prefix must be a DNS subdomain'],
  ])('refuses labels %j at their path', (labels, path, message) => {
    const doc = base();
    (doc.clusters[1] as Record<string, unknown>).labels = labels;
    const r = validatePlanInput(doc);
    if (r.ok) throw new Error('accepted');
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]?.path).toBe(path);
    expect(r.problems[0]?.message).toContain(message);
  });

  describe('schedules spelt alike', () => {
    /** a document whose clusters have the given schedules (policies otherwise like c0's) */
    function withSchedules(...schedules: unknown[]): Doc {
      const doc = base();
      const template = doc.clusters[0]!;
      doc.clusters = schedules.map((schedule, i) => ({
        ...template,
        name: `c${i}`,
        upgradePolicy: { ...(template.upgradePolicy as Record<string, unknown>), schedule },
      }));
      return doc;
    }
    const schedulesOf = (doc: Doc) => {
      const r = validatePlanInput(doc);
      if (!r.ok) throw new Error(JSON.stringify(r.problems));
      return r.input.clusters.map((c) => c.upgradePolicy!.schedule);
    };

    it('share one schedule object (the engine memoizes per object), others do not', () => {
      const [a, b, c, d, e] = schedulesOf(
        withSchedules(
          '0 3 * * *',
          '0 3 * * *',
          { cron: '0 3 * * *' },
          { cron: '0 3 * * *', location: null },
          { cron: '0 3 * * *', isoWeek: 5 },
        ),
      );
      expect(a).toEqual({ cron: '0 3 * * *', location: 'UTC', suspend: false });
      expect(b).toBe(a);
      expect(c).toEqual(a);
      expect(d).toBe(c);
      expect(e).toEqual({ cron: '0 3 * * *', location: 'UTC', suspend: false, isoWeek: '5' });
    });

    it('still refuses a bad schedule at every cluster spelling it, and one an equal spelling would hide', () => {
      const doc = withSchedules('0 48 * * *', '0 48 * * *', { cron: '0 3 * * *' }, { cron: '0 3 * * *', isoWeek: Number.NaN });
      expect(problemPaths(doc)).toEqual([
        'clusters[0].upgradePolicy.schedule',
        'clusters[1].upgradePolicy.schedule',
        'clusters[3].upgradePolicy.schedule.isoWeek',
      ]);
    });
  });
});

describe('lists without repeats (short lists are checked without a Set)', () => {
  it('uniqueInOrder keeps first occurrences in order, as [...new Set(list)] does, short or long', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', '', 'a '), { maxLength: 40 }), (list) => {
        expect(uniqueInOrder(list)).toEqual([...new Set(list)]);
      }),
    );
  });

  const names = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

  it.each([3, 16, 17, 40])('reports a repeated workload at its place and keeps the first (%i workloads)', (n) => {
    const doc = base();
    const workloads = names(n, 'w');
    doc.organization.upgradePolicyAllowedWorkloads = workloads;
    policy(doc).workloads = [...workloads, workloads[1], 'w0'];
    const r = validatePlanInput(doc);
    expect(r.ok ? [] : r.problems).toEqual([
      { path: `clusters[0].upgradePolicy.workloads[${n}]`, message: "duplicate workload 'w1'" },
      { path: `clusters[0].upgradePolicy.workloads[${n + 1}]`, message: "duplicate workload 'w0'" },
    ]);
    policy(doc).workloads = workloads;
    const ok = validatePlanInput(doc);
    expect(ok.ok && ok.input.clusters[0]?.upgradePolicy?.workloads).toEqual(workloads);
  });

  it.each([2, 16, 17, 40])('takes each offered version once, in order (%i offers)', (n) => {
    const doc = base();
    const offers = Array.from({ length: n }, (_, i) => `4.13.${i}`);
    doc.clusters[1]!.availableUpgrades = [...offers, offers[0], 'nope', offers[n - 1]];
    expect(problemPaths(doc)).toEqual([`clusters[1].availableUpgrades[${n + 1}]`]);
    doc.clusters[1]!.availableUpgrades = [offers[n - 1], ...offers, offers[0]];
    const r = validatePlanInput(doc);
    expect(r.ok && r.input.clusters[1]?.availableUpgrades).toEqual([offers[n - 1], ...offers.slice(0, n - 1)]);
  });

  it.each([2, 17])('keeps each mutex once and reports those outside the allow-list after the invalid ones (%i mutexes)', (n) => {
    const doc = base();
    const mutexes = names(n, 'm');
    doc.organization.upgradePolicyAllowedMutexes = mutexes;
    conditions(doc).mutexes = [...mutexes, 'm1', 'm0'];
    const r = validatePlanInput(doc);
    expect(r.ok && r.input.clusters[0]?.upgradePolicy?.conditions.mutexes).toEqual(mutexes);
    conditions(doc).mutexes = ['other', '', 'm0', 7, 'other'];
    expect(validatePlanInput(doc)).toEqual({
      ok: false,
      problems: [
        { path: 'clusters[0].upgradePolicy.conditions.mutexes[1]', message: 'must not be empty' },
        { path: 'clusters[0].upgradePolicy.conditions.mutexes[3]', message: 'must be a string, got number 7' },
        {
          path: 'clusters[0].upgradePolicy.conditions.mutexes[0]',
          message: "mutex 'other' is not in organization.upgradePolicyAllowedMutexes",
        },
        {
          path: 'clusters[0].upgradePolicy.conditions.mutexes[4]',
          message: "mutex 'other' is not in organization.upgradePolicyAllowedMutexes",
        },
      ],
    });
  });

  it('gives a policy its lifecycle after its conditions, and no lifecycle key when it sets none', () => {
    const doc = base();
    const without = validatePlanInput(doc);
    expect(without.ok && Object.keys(without.input.clusters[0]!.upgradePolicy!)).toEqual(['workloads', 'schedule', 'conditions']);
    policy(doc).lifecycle = { eusControlPlaneOnly: true };
    const withLifecycle = validatePlanInput(doc);
    expect(withLifecycle.ok && Object.keys(withLifecycle.input.clusters[0]!.upgradePolicy!)).toEqual([
      'workloads',
      'schedule',
      'conditions',
      'lifecycle',
    ]);
  });
});

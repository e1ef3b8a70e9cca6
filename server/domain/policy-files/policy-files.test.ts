import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parse as parseYaml } from 'yaml';
import { parseClusterFile, parseOrganizationFile, validateOrganizationFileData } from './parse-policy-files';
import { renderClusterFile, renderOrganizationFile } from './render-policy-files';
import { policySpecFromDocument, policySpecToDocument } from '@/lib/policy-spec';
import type { OrganizationFile, UpgradePolicySpec } from './types';

// The examples of the upgrade service's policy guide (seeds/000), completed where the guide
// writes `...`, combined into whole files.
const SOAK_EXAMPLE = `
$schema: /openshift/openshift-cluster-manager-1.yml
name: my-ocm-org
upgradePolicyClusters:
- name: stage-1
  upgradePolicy:
    workloads:
    - my-service
    schedule: 0 13 * * 1-5
    conditions:
      soakDays: 0
- name: stage-2
  upgradePolicy:
    workloads:
    - my-service
    schedule: 0 13 * * 1-5
    conditions:
      soakDays: 0

- name: prod
  upgradePolicy:
    workloads:
    - my-service
    schedule: 0 13 * * 1-5
    conditions:
      soakDays: 4
`;

const SECTOR_EXAMPLE = `
$schema: /openshift/openshift-cluster-manager-1.yml
name: osd-fleet-manager
description: the org of the fleet manager   # not modelled: kept in extra
ocm:
  $ref: /dependencies/ocm/production.yml
blockedVersions:
- ^.*-rc\\..*$
upgradePolicyAllowedWorkloads: [fm]
upgradePolicyAllowedMutexes: [blue-mutex, green-mutex]
sectors:
- name: stage
- name: prod-blue
  maxParallelUpgrades: "50%"
  dependencies:
  - name: stage
- name: prod-green
  maxParallelUpgrades: 2
  dependencies:
  - name: prod-blue
upgradePolicyClusters:
- name: stage-1
  upgradePolicy:
    workloads: [fm]
    schedule: 0 13 * * 1-5
    conditions:
      sector: stage
- name: stage-2
  upgradePolicy:
    workloads: [fm]
    schedule: 0 13 * * 1-5
    conditions:
      sector: stage
- name: prod-1
  upgradePolicy:
    workloads: [fm]
    schedule: {cron: "0 22 * * 2", location: Europe/Zurich, isoWeek: "@odd", suspend: false}
    versionGateApprovals: [api.openshift.com/gate-ocp]
    conditions:
      soakDays: 7
      sector: prod-blue
      mutexes:
      - blue-mutex
- name: prod-2
  upgradePolicy:
    workloads: [fm]
    schedule: 0 13 * * 1-5
    conditions:
      soakDays: 7
      sector: prod-blue
      mutexes:
      - blue-mutex
      blockedVersions: ['^4\\.13\\.0$']
- name: prod-3
  upgradePolicy:
    workloads: [fm]
    schedule: "* * * * *"
    conditions:
      soakDays: 7.5
      sector: prod-green
      mutexes:
      - green-mutex
`;

function roundTripData(text: string): { rendered: unknown; original: unknown } {
  const parsed = parseOrganizationFile(text);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return { rendered: parseYaml(renderOrganizationFile(parsed.value)), original: parseYaml(text) };
}

function problemPaths(text: string): string[] {
  const parsed = parseOrganizationFile(text);
  if (parsed.ok) throw new Error('expected problems');
  return parsed.problems.map((p) => p.path);
}

describe('organization file', () => {
  it('renders the guide examples back to the same data', () => {
    for (const text of [SOAK_EXAMPLE, SECTOR_EXAMPLE]) {
      const { rendered, original } = roundTripData(text);
      expect(rendered).toEqual(original);
    }
  });

  it('keeps unknown keys in extra and writes them back', () => {
    const parsed = parseOrganizationFile(SECTOR_EXAMPLE);
    if (!parsed.ok) throw new Error('invalid');
    expect(parsed.value.extra).toEqual({ description: 'the org of the fleet manager', ocm: { $ref: '/dependencies/ocm/production.yml' } });
    const prod1 = parsed.value.upgradePolicyClusters[2]!;
    expect(prod1.upgradePolicy.extra).toEqual({ versionGateApprovals: ['api.openshift.com/gate-ocp'] });
    expect(prod1.upgradePolicy.schedule).toEqual({ cron: '0 22 * * 2', location: 'Europe/Zurich', isoWeek: '@odd', suspend: false });
    expect(parsed.value.sectors[2]).toEqual({ name: 'prod-green', maxParallelUpgrades: 2, dependencies: ['prod-blue'] });
    expect(parsed.notices).toEqual([]);
  });

  it('parse(render(x)) equals x', () => {
    const parsed = parseOrganizationFile(SECTOR_EXAMPLE);
    if (!parsed.ok) throw new Error('invalid');
    const again = parseOrganizationFile(renderOrganizationFile(parsed.value));
    expect(again.ok && again.value).toEqual(parsed.value);
  });

  it('parse(render(x)) equals x for generated files', () => {
    const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/);
    const workload = fc.constantFrom('wl-a', 'wl-b', 'wl-c');
    const schedule = fc.oneof(
      fc.constantFrom('0 13 * * 1-5', '* * * * *', '*/15 2 1,15 * *', '0 10 8-14 * fri'),
      fc.record(
        {
          cron: fc.constantFrom('0 22 * * 2', '30 1 * jan-mar mon'),
          location: fc.constantFrom('UTC', 'Europe/Zurich'),
          isoWeek: fc.constantFrom('@odd', '@even', '1,2,30', 7),
          suspend: fc.boolean(),
        },
        { requiredKeys: ['cron'] },
      ),
    );
    const policy: fc.Arbitrary<UpgradePolicySpec> = fc.record(
      {
        workloads: fc.uniqueArray(workload, { minLength: 1, maxLength: 3 }),
        schedule,
        conditions: fc.record(
          {
            soakDays: fc.oneof(fc.nat(30), fc.constantFrom(0.5, 2.25)),
            mutexes: fc.uniqueArray(fc.constantFrom('m1', 'm2'), { maxLength: 2 }),
            sector: fc.constantFrom('s0', 's1', 's2'),
            blockedVersions: fc.array(fc.constantFrom('^4\\.13\\.0$', '-rc\\.', '^4\\.1[0-2]\\.'), { maxLength: 2 }),
            extra: fc.constant({ note: 'x' }),
          },
          { requiredKeys: [] },
        ),
        extra: fc.constant({ versionGateApprovals: ['gate'] }),
      },
      { requiredKeys: ['workloads', 'schedule'] },
    );
    const file: fc.Arbitrary<OrganizationFile> = fc.record(
      {
        name,
        blockedVersions: fc.array(fc.constantFrom('^.*-rc\\..*$', '4\\.14\\.0'), { maxLength: 2 }),
        upgradePolicyAllowedWorkloads: fc.constant(['wl-a', 'wl-b', 'wl-c']),
        sectors: fc.constant([
          { name: 's0', dependencies: [] },
          { name: 's1', maxParallelUpgrades: '50%', dependencies: ['s0'] },
          { name: 's2', maxParallelUpgrades: 3, dependencies: ['s0', 's1'], extra: { description: 'last' } },
        ]),
        upgradePolicyClusters: fc.uniqueArray(fc.record({ name, upgradePolicy: policy }), { selector: (c) => c.name, maxLength: 6 }),
        extra: fc.constant({ ocm: { $ref: '/x.yml' } }),
      },
      { requiredKeys: ['name', 'blockedVersions', 'sectors', 'upgradePolicyClusters'] },
    );
    fc.assert(
      fc.property(file, (x) => {
        const again = parseOrganizationFile(renderOrganizationFile(x));
        expect(again.ok ? again.value : again.problems).toEqual(x);
      }),
      { numRuns: 150 },
    );
  });

  it('reports every problem at the path in the file', () => {
    const bad = `
name: org
blockedVersions: ['(?=x)']
upgradePolicyAllowedWorkloads: [a]
sectors:
- name: s1
  dependencies: [{name: s2}]
- name: s2
  dependencies: [{name: s1}]
  maxParallelUpgrades: 0%
- name: s3
  dependencies: [{name: nope}]
upgradePolicyClusters:
- name: c0
  upgradePolicy: {workloads: [a, b], schedule: "0 13 * * 1-5"}
- name: c1
  upgradePolicy: {workloads: [a], schedule: "61 * * * *"}
- name: c2
  upgradePolicy: {workloads: [a], schedule: {cron: "0 1 * * *", location: Mars/Base}}
- name: c3
  upgradePolicy: {workloads: [a], schedule: "0 1 * * *", conditions: {soakDays: -1, sector: s9}}
- name: c3
- name: c5
  upgradePolicy: {workloads: [], schedule: "0 1 * * *"}
`;
    expect(problemPaths(bad).sort()).toEqual(
      [
        'blockedVersions[0]',
        'sectors[1].maxParallelUpgrades',
        'sectors[2].dependencies[0]',
        'sectors',
        'upgradePolicyClusters[0].upgradePolicy.workloads[1]',
        'upgradePolicyClusters[1].upgradePolicy.schedule',
        'upgradePolicyClusters[2].upgradePolicy.schedule.location',
        'upgradePolicyClusters[3].upgradePolicy.conditions.soakDays',
        'upgradePolicyClusters[3].upgradePolicy.conditions.sector',
        'upgradePolicyClusters[4].upgradePolicy',
        'upgradePolicyClusters[4].name',
        'upgradePolicyClusters[5].upgradePolicy.workloads',
      ].sort(),
    );
  });

  it('names the sectors of a cycle', () => {
    const parsed = parseOrganizationFile(
      'name: o\nsectors: [{name: a, dependencies: [{name: b}]}, {name: b, dependencies: [{name: a}]}]\n',
    );
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problems).toEqual([{ path: 'sectors', message: 'sector dependency cycle: a -> b -> a' }]);
  });

  it('rejects a wrong $schema, a missing name and a YAML syntax error (with its line)', () => {
    expect(problemPaths('$schema: /openshift/cluster-1.yml\nname: x\n')).toEqual(['$schema']);
    expect(problemPaths('blockedVersions: []\n')).toEqual(['name']);
    expect(problemPaths('name: x\nsectors:\n  - name: a\n   bad: [\n')[0]).toMatch(/^line \d+$/);
    expect(problemPaths('name: x\nname: y\n')[0]).toMatch(/^line 2$/);
    expect(problemPaths('- just\n- a list\n')).toEqual(['(document)']);
  });

  it("imports and exports a sector's canaries as written", () => {
    const text = `name: org
sectors:
- name: prod
  canary: {percent: 10, soakHours: 24, selector: canary=true}
upgradePolicyClusters: []
`;
    const parsed = parseOrganizationFile(text);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    expect(parsed.value.sectors[0]!.canary).toEqual({ percent: 10, soakHours: 24, selector: 'canary=true' });
    expect(parseYaml(renderOrganizationFile(parsed.value))).toMatchObject({
      sectors: [{ name: 'prod', canary: { percent: 10, soakHours: 24, selector: 'canary=true' } }],
    });
  });

  it('reports dependency keys it does not keep', () => {
    const parsed = validateOrganizationFileData({
      name: 'o',
      sectors: [{ name: 'a' }, { name: 'b', dependencies: [{ name: 'a', ocm: { $ref: '/x' } }] }],
    });
    expect(parsed.ok && parsed.notices).toEqual([
      { path: 'sectors[1].dependencies[0]', message: "not kept: ocm (only the dependency's name is used)" },
    ]);
  });
});

describe('cluster file', () => {
  const CLUSTER = `
$schema: /openshift/cluster-1.yml
labels: {service: ocm}
name: my-cluster
description: stage cluster
spec:
  product: osd
  version: 4.13.4
upgradePolicy:
  workloads:
  - workload1
  - workload2
  schedule: 0 12 * * 1-5
  conditions:
    soakDays: 0
    mutexes:
    - mutex-1
    - mutex-2
    sector: sector-1
`;

  it('round-trips, keeping the rest of the cluster file', () => {
    const parsed = parseClusterFile(CLUSTER);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    expect(parsed.value.extra).toEqual({
      labels: { service: 'ocm' },
      description: 'stage cluster',
      spec: { product: 'osd', version: '4.13.4' },
    });
    expect(parseYaml(renderClusterFile(parsed.value))).toEqual(parseYaml(CLUSTER));
    const again = parseClusterFile(renderClusterFile(parsed.value));
    expect(again.ok && again.value).toEqual(parsed.value);
  });

  it('accepts a cluster file without a policy', () => {
    const parsed = parseClusterFile('$schema: /openshift/cluster-1.yml\nname: c\n');
    expect(parsed.ok && parsed.value).toEqual({ name: 'c', upgradePolicy: null });
  });

  it('checks the policy, against the organization when given', () => {
    const bad = parseClusterFile('name: c\nupgradePolicy: {workloads: [w], schedule: "0 12 * * L", conditions: {soakDays: "3"}}\n');
    expect(bad.ok ? [] : bad.problems.map((p) => p.path)).toEqual(['upgradePolicy.schedule', 'upgradePolicy.conditions.soakDays']);
    const organization = {
      name: 'o',
      blockedVersions: [],
      sectors: [{ name: 'stage', dependencies: [] }],
      upgradePolicyAllowedMutexes: ['m'],
    };
    const withOrg = parseClusterFile(CLUSTER, { organization });
    expect(withOrg.ok ? [] : withOrg.problems.map((p) => p.path)).toEqual([
      'upgradePolicy.conditions.mutexes[0]',
      'upgradePolicy.conditions.mutexes[1]',
      'upgradePolicy.conditions.sector',
    ]);
  });
});

describe('policy document form', () => {
  it('converts both ways without loss', () => {
    const doc = {
      workloads: ['a'],
      schedule: { cron: '0 1 * * *', isoWeek: 5, future: true },
      conditions: { sector: 's', soakDays: 2, x: 1 },
      versionGateApprovals: ['g'],
    };
    expect(policySpecToDocument(policySpecFromDocument(doc))).toEqual(doc);
  });
});

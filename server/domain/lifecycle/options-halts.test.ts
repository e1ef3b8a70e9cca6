import { describe, expect, it } from 'vitest';
import { buildHaltIndex, downstreamSectors, haltReason, type UnacknowledgedFailure } from './halts';
import { healthProblems } from './observation';
import { DEFAULT_LIFECYCLE_OPTIONS, formatDuration, parseDuration, parseLifecycleOptions } from './options';

describe('lifecycle options', () => {
  it('absent → every default (1h start delay, 8h timeout, 1h notice lead, halt, no conditional)', () => {
    expect(parseLifecycleOptions(undefined, 'p')).toEqual({ options: DEFAULT_LIFECYCLE_OPTIONS, problems: [] });
    expect(DEFAULT_LIFECYCLE_OPTIONS).toMatchObject({
      maxUpgradeStartDelayMs: 3_600_000,
      upgradeTimeoutMs: 8 * 3_600_000,
      preCheckLeadMs: 3_600_000,
      onFailure: 'halt',
      allowConditionalUpdates: false,
    });
  });

  it.each([
    ['1h', 3_600_000],
    ['90m', 5_400_000],
    ['1h30m', 5_400_000],
    ['45s', 45_000],
    [600, 600_000],
    ['1d', null],
    ['', null],
    [-5, null],
    [1.5, null],
  ])('parseDuration(%j) = %j', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it('formats durations back', () => expect([formatDuration(5_400_000), formatDuration(0)]).toEqual(['1h30m', '0s']));

  it('reads the seed-001 health checks, objects or names for alerts', () => {
    const { options, problems } = parseLifecycleOptions(
      {
        maxUpgradeStartDelay: '30m',
        onFailure: 'continue',
        allowConditionalUpdates: true,
        healthChecks: {
          checkCriticalAlerts: true,
          checkDegradedOperators: false,
          excludeAlerts: [{ alertname: 'KubePodCrashLooping' }, 'Watchdog'],
          excludeNamespaces: ['openshift-console'],
          excludeOperators: ['openshift-monitoring'],
        },
      },
      'p.lifecycle',
    );
    expect(problems).toEqual([]);
    expect(options).toEqual({
      ...DEFAULT_LIFECYCLE_OPTIONS,
      maxUpgradeStartDelayMs: 1_800_000,
      onFailure: 'continue',
      allowConditionalUpdates: true,
      healthChecks: {
        checkCriticalAlerts: true,
        checkDegradedOperators: false,
        excludeAlerts: ['KubePodCrashLooping', 'Watchdog'],
        excludeNamespaces: ['openshift-console'],
        excludeOperators: ['openshift-monitoring'],
      },
    });
  });

  it('names every bad value and unknown key', () => {
    const { problems } = parseLifecycleOptions(
      {
        upgradeTimout: '8h',
        upgradeTimeout: '10s',
        onFailure: 'retry',
        maxUpgradeStartDelay: 'soon',
        healthChecks: { excludeAlerts: [3] },
      },
      'l',
    );
    expect(problems.map((p) => p.path).sort()).toEqual([
      'l.healthChecks.excludeAlerts[0]',
      'l.maxUpgradeStartDelay',
      'l.onFailure',
      'l.upgradeTimeout',
      'l.upgradeTimout',
    ]);
  });
});

describe('health problems', () => {
  const health = {
    operators: [
      { name: 'openshift-monitoring', degraded: true, available: true },
      { name: 'etcd', degraded: false, available: false, message: 'no quorum' },
    ],
    alerts: [
      { name: 'KubePodCrashLooping', namespace: 'x', severity: 'critical' },
      { name: 'Console', namespace: 'openshift-console', severity: 'critical' },
      { name: 'Warn', severity: 'warning' },
      { name: 'EtcdDown', namespace: 'openshift-etcd', severity: 'critical' },
    ],
    other: ['cluster state is installing'],
  };
  it('applies the exclusions of alerts, namespaces and operators', () => {
    const cfg = {
      ...DEFAULT_LIFECYCLE_OPTIONS.healthChecks,
      excludeAlerts: ['KubePodCrashLooping'],
      excludeNamespaces: ['openshift-console'],
      excludeOperators: ['openshift-monitoring'],
    };
    expect(healthProblems(health, cfg)).toEqual([
      'ClusterOperator etcd is not Available: no quorum',
      'critical alert EtcdDown firing in openshift-etcd',
      'cluster state is installing',
    ]);
  });
  it('switches off operator and alert checks; unreadable alerts are no gate', () => {
    const cfg = { ...DEFAULT_LIFECYCLE_OPTIONS.healthChecks, checkCriticalAlerts: false, checkDegradedOperators: false };
    expect(healthProblems(health, cfg)).toEqual(['cluster state is installing']);
    expect(healthProblems({ operators: [], alerts: null, other: [] }, DEFAULT_LIFECYCLE_OPTIONS.healthChecks)).toEqual([]);
  });
});

describe('failure halts', () => {
  const sectors = [
    { name: 'dev', dependencies: [] },
    { name: 'stage', dependencies: ['dev'] },
    { name: 'prod', dependencies: ['stage'] },
    { name: 'other', dependencies: [] },
  ];
  const failure = (patch: Partial<UnacknowledgedFailure> = {}): UnacknowledgedFailure => ({
    attemptId: 3,
    cluster: 'stage-1',
    sector: 'stage',
    version: '4.13.12',
    halts: true,
    ...patch,
  });

  it('downstream sectors are transitive and cycles are cut', () => {
    expect([...downstreamSectors('dev', sectors)].sort()).toEqual(['dev', 'prod', 'stage']);
    expect(
      [
        ...downstreamSectors('a', [
          { name: 'a', dependencies: ['b'] },
          { name: 'b', dependencies: ['a'] },
        ]),
      ].sort(),
    ).toEqual(['a', 'b']);
  });

  it('halts the version in its sector and downstream, not upstream, not other versions', () => {
    const index = buildHaltIndex([failure()], sectors);
    expect(haltReason(index, 'stage-2', 'stage', '4.13.12')).toMatch(/failed on stage-1/);
    expect(haltReason(index, 'prod-1', 'prod', '4.13.12')).toMatch(/upstream of prod/);
    expect(haltReason(index, 'dev-1', 'dev', '4.13.12')).toBeNull();
    expect(haltReason(index, 'other-1', 'other', '4.13.12')).toBeNull();
    expect(haltReason(index, 'prod-1', 'prod', '4.13.13')).toBeNull();
  });

  it('onFailure: continue halts nobody else, but the failed cluster never retries the version', () => {
    const index = buildHaltIndex([failure({ halts: false })], sectors);
    expect(haltReason(index, 'stage-2', 'stage', '4.13.12')).toBeNull();
    expect(haltReason(index, 'stage-1', 'stage', '4.13.12')).toMatch(/failed on this cluster/);
  });
});

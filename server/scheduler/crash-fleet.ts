// The fleet of the crash test: mutex groups and many releases so every tick has work to do.
import type { TestFleet } from './test-fleet';

export const CRASH_BASE_TIME = '2021-08-30T18:00:00Z';
/** fleet time per tick */
export const CRASH_STEP_MS = 20 * 60_000;
/** fake upgrades complete this long after they start */
export const CRASH_DURATION_MS = 30 * 60_000;

const RELEASES = Array.from({ length: 40 }, (_, i) => `4.13.${i + 1}`);
export const CRASH_MUTEX_GROUPS = ['m-a', 'm-b', 'm-c'];
export const CRASH_EXCLUDED_OPERATOR = 'local-storage-operator';

export const CRASH_FLEET: TestFleet = {
  clusters: Array.from({ length: 18 }, (_, i) => ({
    name: `c-${String(i).padStart(2, '0')}`,
    version: '4.13.1',
    // a rolling window of releases so clusters can take several upgrades in a row
    releases: RELEASES,
    soakDays: 0,
    ...(i % 6 !== 5 ? { mutexes: [CRASH_MUTEX_GROUPS[i % 3]!] } : {}),
    // a third approve their operators' InstallPlans after each upgrade (one plan excluded)
    ...(i % 3 === 0 ? { lifecycle: { operatorApprovals: { include: ['*'], exclude: [CRASH_EXCLUDED_OPERATOR] } } } : {}),
  })),
};

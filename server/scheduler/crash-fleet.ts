// The fleet of the crash test: mutex groups and many releases so every tick has work to do.
import type { TestFleet } from './test-fleet';

/**
 * Two clusters far behind follow a route (plan/route-following.ts) to the organization's target
 * 4.15.*: 4.12.5 → 4.13.50 → 4.14.2 → 4.15.1 (4.13.60 is offered and a dead end), switching to
 * stable-4.14 and then stable-4.15 before those hops. The other clusters' versions are not in the
 * graph: they climb as before.
 */
export const CRASH_ROUTE = ['4.12.5', '4.13.50', '4.14.2', '4.15.1'];
export const CRASH_ROUTE_CHANNELS: Record<string, string> = { '4.14.2': 'stable-4.14', '4.15.1': 'stable-4.15' };
/**
 * Two EUS clusters (eus-4.12, their own target 4.14.*) take an EUS-to-EUS run control-plane-only
 * (lifecycle.eusControlPlaneOnly): 4.12.70 → 4.13.70 → 4.14.70 on eus-4.14, the worker pool paused
 * across both hops, the 4.13→4.14 admin gate acknowledged between them.
 */
export const CRASH_EUS_ROUTE = ['4.12.70', '4.13.70', '4.14.70'];
export const CRASH_EUS_GATE = 'ack-4.13-kube-1.27-api-removals-in-4.14';
const node = (version: string, channels: string[]) => ({
  version,
  payload: `quay.io/openshift-release-dev/ocp-release@sha256:${version}`,
  metadata: { 'io.openshift.upgrades.graph.release.channels': channels.join(',') },
});
const CRASH_GRAPH = JSON.stringify({
  nodes: [
    node('4.12.5', ['stable-4.12', 'stable-4.13']),
    node('4.13.50', ['stable-4.13', 'stable-4.14']),
    node('4.13.60', ['stable-4.13']),
    node('4.14.2', ['stable-4.14', 'stable-4.15']),
    node('4.15.1', ['stable-4.15']),
    node('4.12.70', ['stable-4.12', 'eus-4.12', 'eus-4.14']),
    node('4.13.70', ['stable-4.13', 'eus-4.14']),
    node('4.14.70', ['stable-4.14', 'eus-4.14']),
  ],
  edges: [
    [0, 1],
    [0, 2],
    [1, 3],
    [3, 4],
    [5, 6],
    [6, 7],
  ],
  conditionalEdges: [],
});

export const CRASH_BASE_TIME = '2021-08-30T18:00:00Z';
/** fleet time per tick */
export const CRASH_STEP_MS = 20 * 60_000;
/** fake upgrades complete this long after they start */
export const CRASH_DURATION_MS = 30 * 60_000;

const RELEASES = Array.from({ length: 40 }, (_, i) => `4.13.${i + 1}`);
export const CRASH_MUTEX_GROUPS = ['m-a', 'm-b', 'm-c'];
export const CRASH_EXCLUDED_OPERATOR = 'local-storage-operator';

export const CRASH_FLEET: TestFleet = {
  targetVersion: '4.15.*',
  graphs: [CRASH_GRAPH],
  clusters: [
    ...Array.from({ length: 18 }, (_, i) => ({
      name: `c-${String(i).padStart(2, '0')}`,
      version: '4.13.1',
      // a rolling window of releases so clusters can take several upgrades in a row
      releases: RELEASES,
      soakDays: 0,
      ...(i % 6 !== 5 ? { mutexes: [CRASH_MUTEX_GROUPS[i % 3]!] } : {}),
      // a third approve their operators' InstallPlans after each upgrade (one plan excluded)
      ...(i % 3 === 0 ? { lifecycle: { operatorApprovals: { include: ['*'], exclude: [CRASH_EXCLUDED_OPERATOR] } } } : {}),
    })),
    ...['r-00', 'r-01'].map((name) => ({ name, version: '4.12.5', releases: [...CRASH_ROUTE.slice(1), '4.13.60'], soakDays: 0 })),
    ...['e-00', 'e-01'].map((name) => ({
      name,
      version: CRASH_EUS_ROUTE[0]!,
      channel: 'eus-4.12',
      releases: CRASH_EUS_ROUTE.slice(1),
      soakDays: 0,
      targetVersion: '4.14.*',
      lifecycle: { eusControlPlaneOnly: true },
    })),
  ],
};

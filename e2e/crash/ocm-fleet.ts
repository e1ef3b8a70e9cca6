// The fleet the crash tests run against the fake OCM: clusters whose policies have a slot every
// minute and no soak (so upgrades are planned and POSTed all the time), a driver that plays OCM's
// side, and the count of what the fake saw against what fleetplan recorded.
import { expect } from '@playwright/test';
import fs from 'node:fs';
import path from 'node:path';
import { sleep, type FakeProcess } from './processes';

export const OCM_TOKEN = 'fake-ocm-token';

export interface OcmWrite {
  cluster: string;
  method: 'POST' | 'DELETE';
  policyId: string;
  version?: string;
  at: string;
}

export const crashClusterNames = (count: number, prefix = 'crash') =>
  Array.from({ length: count }, (_, i) => `${prefix}-${String(i + 1).padStart(2, '0')}`);

const nextPatch = (v: string) => v.replace(/\d+$/, (n) => String(Number(n) + 1));

/** The fake's fleet (every cluster on 4.13.10, 4.13.11 published) in `dir`/fleet.json; returns its path. */
export function writeFleetFile(dir: string, names: string[]): string {
  const fleetFile = path.join(dir, 'fleet.json');
  fs.writeFileSync(
    fleetFile,
    JSON.stringify({ clusters: names.map((name) => ({ id: name, name, version: '4.13.10', releases: ['4.13.10', '4.13.11'] })) }),
  );
  return fleetFile;
}

/** An organization file (`fleetplan import`) managing every cluster: a slot every minute, no soak. */
export function writeOrganizationFile(dir: string, organization: string, names: string[]): string {
  const orgFile = path.join(dir, 'org.yml');
  fs.writeFileSync(
    orgFile,
    [
      '$schema: /openshift/openshift-cluster-manager-1.yml',
      `name: ${organization}`,
      'upgradePolicyClusters:',
      ...names.map((n) => `- name: ${n}\n  upgradePolicy: {workloads: [w], schedule: "* * * * *", conditions: {soakDays: 0}}`),
      '',
    ].join('\n'),
  );
  return orgFile;
}

export interface OcmDriver {
  /** what went wrong talking to the fake (a test expects none) */
  errors: string[];
  /** no new release after this: every upgrade under way can finish */
  stopPublishing(): void;
  /** stops the loop and waits for it */
  stop(): Promise<void>;
}

/**
 * Plays OCM's side: a while (0.5–3.5 s) after each POST, the upgrade completes (the cluster runs
 * the version, OCM removes the policy) and the next release is published, so every cluster keeps
 * being upgraded.
 */
export function driveOcm(ocm: FakeProcess, random: () => number): OcmDriver {
  const errors: string[] = [];
  const handled = new Set<string>();
  let driving = true;
  let publishing = true;
  const loop = (async () => {
    while (driving) {
      let writes: OcmWrite[] = [];
      try {
        ({ writes } = await ocm.get<{ writes: OcmWrite[] }>('/_fake/writes'));
      } catch (err) {
        errors.push(`reading the writes: ${err instanceof Error ? err.message : String(err)}`);
      }
      for (const w of writes) {
        const key = `${w.cluster}@${w.version}`;
        if (w.method !== 'POST' || handled.has(key)) continue;
        handled.add(key);
        const delay = 500 + Math.floor(random() * 3000);
        setTimeout(() => {
          void (async () => {
            try {
              await ocm.post(`/_fake/clusters/${w.cluster}/complete`);
              if (publishing) await ocm.post(`/_fake/clusters/${w.cluster}/publish`, { version: nextPatch(w.version!) });
            } catch (err) {
              errors.push(`${key}: ${err instanceof Error ? err.message : String(err)}`);
            }
          })();
        }, delay);
      }
      await sleep(250);
    }
  })();
  return {
    errors,
    stopPublishing: () => void (publishing = false),
    stop: async () => {
      driving = false;
      await loop.catch(() => undefined);
    },
  };
}

/** How many POSTs the fake took for each `cluster@version`. */
export function postsPerTarget(writes: OcmWrite[]): Map<string, number> {
  const perTarget = new Map<string, number>();
  for (const w of writes) {
    if (w.method !== 'POST') continue;
    const key = `${w.cluster}@${w.version}`;
    perTarget.set(key, (perTarget.get(key) ?? 0) + 1);
  }
  return perTarget;
}

/** An upgrade attempt and a start intent as fleetplan recorded them, in either database's rows. */
export interface RecordedAttempt {
  target: string;
  state: string;
  requested: boolean;
  confirmed: boolean;
}
export interface RecordedIntent {
  target: string;
  status: string;
}

/**
 * What both crash tests require of the provider: no refusal (an intent replayed with a start OCM
 * refuses), no DELETE, never two POSTs for one cluster and version, exactly one POST per attempt
 * whose start fleetplan recorded and none without one, every start intent done with its attempt
 * confirmed, every attempt completed.
 */
export function expectOnePostPerRecordedStart(
  fake: { writes: OcmWrite[]; refusals: unknown[] },
  attempts: RecordedAttempt[],
  intents: RecordedIntent[],
): void {
  expect(fake.refusals).toEqual([]);
  expect(fake.writes.filter((w) => w.method === 'DELETE')).toEqual([]);
  const perTarget = postsPerTarget(fake.writes);
  expect([...perTarget].filter(([, n]) => n > 1)).toEqual([]);
  const started = attempts.filter((x) => x.requested);
  const startedTargets = started.map((x) => x.target).sort();
  expect(new Set(startedTargets).size).toBe(startedTargets.length);
  expect([...perTarget.keys()].sort()).toEqual(startedTargets);
  expect(intents.filter((x) => x.status !== 'done')).toEqual([]);
  expect(intents.map((x) => x.target).sort()).toEqual(startedTargets);
  expect(started.filter((x) => !x.confirmed)).toEqual([]);
  expect(attempts.filter((x) => x.state !== 'completed')).toEqual([]);
}

/**
 * Test fixtures for the engine's unit tests (decide-upgrades, evaluate-fleet): a managed cluster
 * in the contract's raw shape, and a validated fleet around it, so each test writes only what it
 * varies. Not used by the application.
 */
import type { PlanInput } from './types';
import { validatePlanInput } from './validate-plan-input';

export const TEST_NOW = '2021-08-30T18:00:00Z';

export type RawCluster = Record<string, unknown>;

/** A cluster on 4.12.17 offered 4.12.19, workload `wl`, any minute, no soak; `overrides` replace fields. */
export function testCluster(name: string, overrides: RawCluster = {}, conditions: Record<string, unknown> = {}): RawCluster {
  return {
    name,
    version: '4.12.17',
    availableUpgrades: ['4.12.19'],
    upgradePolicy: { workloads: ['wl'], schedule: '* * * * *', conditions: { soakDays: 0, ...conditions } },
    ...overrides,
  };
}

/** The validated fleet of organization `org` at TEST_NOW; throws with the problems when invalid. */
export function testPlanInput(clusters: RawCluster[], extra: Record<string, unknown> = {}): PlanInput {
  const { organization, ...rest } = extra;
  const r = validatePlanInput({ now: TEST_NOW, organization: { name: 'org', ...(organization as object) }, clusters, ...rest });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.input;
}

// The demo's frictionless sign-in: a real session for the seeded `demo` operator, offered on the
// login page. It exists only for the simulated demo fleet: the simulator provider must be
// configured (a real provider means real clusters, where an anonymous operator session would be
// a hole), and the database must have been seeded with the demo fleet (bootstrap.ts stores
// the switch then) or FLEETPLAN_DEMO_LOGIN=1 must ask for it. FLEETPLAN_DEMO_LOGIN=0 turns it off always;
// FLEETPLAN_DEMO_LOGIN=1 with a real provider is refused (bootstrap.ts says so in the server log).
import type { Db } from '@/db/open-database';
import type { FleetplanEnv } from '@/server/env';
import { readDemoLoginSetting } from '@/server/repositories/user-repository';

export const DEMO_USERNAME = 'demo';

/** FLEETPLAN_DEMO_LOGIN and FLEETPLAN_PROVIDER, as server/env.ts parsed them */
export type DemoLoginEnv = Pick<FleetplanEnv, 'demoLogin' | 'provider'>;

/** Why FLEETPLAN_DEMO_LOGIN=1 is ignored, or null when it is not set or allowed. */
export function demoLoginRefusal(env: DemoLoginEnv): string | null {
  if (env.demoLogin !== true || env.provider.name === 'simulator') return null;
  return `fleetplan: FLEETPLAN_DEMO_LOGIN=1 refused: the demo sign-in exists only with the simulator provider (FLEETPLAN_PROVIDER=${env.provider.name})`;
}

export async function isDemoLoginEnabled(db: Db, env: DemoLoginEnv): Promise<boolean> {
  if (env.provider.name !== 'simulator') return false;
  return env.demoLogin ?? (await readDemoLoginSetting(db));
}

// The demo's frictionless sign-in: a real session for the seeded `demo` operator, offered on the
// login page. It exists only for the simulated demo fleet: the simulator provider must be
// configured (a real provider means real clusters, where an anonymous operator session would be
// a hole), and the database must have been seeded with the demo fleet (db/seed.ts stores the
// switch) or FLEETPLAN_DEMO_LOGIN=1 must ask for it. FLEETPLAN_DEMO_LOGIN=0 turns it off always;
// FLEETPLAN_DEMO_LOGIN=1 with a real provider is refused (bootstrap.ts says so in the server log).
import type { Db } from '@/db/open-database';
import { readDemoLoginSetting } from '@/server/repositories/user-repository';

export const DEMO_USERNAME = 'demo';

type Env = Record<string, string | undefined>;

/** the one provider whose fleet is simulated; see server/integrations/providers/create-provider.ts */
function providerOf(env: Env): string {
  return env.FLEETPLAN_PROVIDER ?? 'simulator';
}

/** Why FLEETPLAN_DEMO_LOGIN=1 is ignored, or null when it is not set or allowed. */
export function demoLoginRefusal(env: Env = process.env): string | null {
  if (env.FLEETPLAN_DEMO_LOGIN !== '1' || providerOf(env) === 'simulator') return null;
  return `fleetplan: FLEETPLAN_DEMO_LOGIN=1 refused: the demo sign-in exists only with the simulator provider (FLEETPLAN_PROVIDER=${providerOf(env)})`;
}

export function isDemoLoginEnabled(db: Db, env: Env = process.env): boolean {
  if (providerOf(env) !== 'simulator') return false;
  if (env.FLEETPLAN_DEMO_LOGIN === '0') return false;
  if (env.FLEETPLAN_DEMO_LOGIN === '1') return true;
  return readDemoLoginSetting(db);
}

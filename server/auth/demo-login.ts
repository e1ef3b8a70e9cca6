// The demo's frictionless sign-in: a real session for the seeded `demo` operator, offered on the
// login page. On when FLEETPLAN_DEMO_LOGIN=1, or when the database was seeded with the demo fleet
// (db/seed.ts stores the switch); FLEETPLAN_DEMO_LOGIN=0 turns it off whatever the database says.
import type { Db } from '@/db/open-database';
import { readDemoLoginSetting } from '@/server/repositories/user-repository';

export const DEMO_USERNAME = 'demo';

export function isDemoLoginEnabled(db: Db, env: Record<string, string | undefined> = process.env): boolean {
  if (env.FLEETPLAN_DEMO_LOGIN === '0') return false;
  if (env.FLEETPLAN_DEMO_LOGIN === '1') return true;
  return readDemoLoginSetting(db);
}

// First start: make sure someone can sign in. Creates `admin` (password from
// FLEETPLAN_ADMIN_PASSWORD, else a random one printed once to the server log) when the database
// has no users, and the `demo` operator when demo sign-in is on. Idempotent; called by
// prepareDatabase() (server/cli/prepare-database.ts) at `npm start`, by `npm run db:seed`, and
// lazily on the first request (next dev).
import type { Db } from '@/db/open-database';
import { getEnv, type FleetplanEnv } from '@/server/env';
import { appendAudit } from '@/server/repositories/audit-repository';
import { countUsers, findUserByName, insertUser, writeDemoLoginSetting } from '@/server/repositories/user-repository';
import { DEMO_USERNAME, demoLoginRefusal, isDemoLoginEnabled } from './demo-login';
import { hashPassword, unusablePasswordHash } from './password';
import { passwordProblem } from './password-policy';
import { generateSecret } from './secrets';

export const ADMIN_USERNAME = 'admin';

export interface BootstrapOptions {
  /** the checked settings (server/env.ts); the process's own unless a test passes others */
  env?: Pick<FleetplanEnv, 'demoLogin' | 'provider' | 'adminPassword'>;
  log?: (line: string) => void;
  now?: Date;
  /** the demo fleet was just seeded: remember that demo sign-in is on for this database */
  demoSeeded?: boolean;
}

export async function bootstrapAuth(db: Db, opts: BootstrapOptions = {}): Promise<{ adminCreated: boolean; demoUserCreated: boolean }> {
  const env = opts.env ?? getEnv();
  const log = opts.log ?? ((line: string) => console.log(line));
  const now = opts.now ?? new Date();
  if (opts.demoSeeded && env.demoLogin !== false) await writeDemoLoginSetting(db, true, now);
  const refusal = demoLoginRefusal(env);
  if (refusal) log(refusal);

  let adminCreated = false;
  if ((await countUsers(db)) === 0) {
    const fromEnv = env.adminPassword;
    const problem = fromEnv === undefined ? null : passwordProblem(fromEnv, ADMIN_USERNAME);
    if (problem) throw new Error(`FLEETPLAN_ADMIN_PASSWORD ${problem}`);
    const password = fromEnv ?? generateSecret(18);
    await insertUser(db, {
      username: ADMIN_USERNAME,
      passwordHash: await hashPassword(password),
      role: 'admin',
      createdAt: now,
      // a password printed to the server log is known to whoever reads the log: replace it first
      mustChangePassword: fromEnv === undefined,
    });
    await appendAudit(db, {
      organizationId: null,
      at: now,
      actor: 'system:bootstrap',
      action: 'user.create',
      target: `user:${ADMIN_USERNAME}`,
      after: { role: 'admin' },
    });
    adminCreated = true;
    log(
      fromEnv !== undefined
        ? `fleetplan: created user '${ADMIN_USERNAME}' with the password from FLEETPLAN_ADMIN_PASSWORD`
        : `fleetplan: created user '${ADMIN_USERNAME}' with password ${password}  (shown once; you will be asked to change it at first sign-in)`,
    );
  }

  let demoUserCreated = false;
  if ((await isDemoLoginEnabled(db, env)) && !(await findUserByName(db, DEMO_USERNAME))) {
    await insertUser(db, { username: DEMO_USERNAME, passwordHash: unusablePasswordHash(), role: 'operator', createdAt: now });
    await appendAudit(db, {
      organizationId: null,
      at: now,
      actor: 'system:bootstrap',
      action: 'user.create',
      target: `user:${DEMO_USERNAME}`,
      after: { role: 'operator', demo: true },
    });
    demoUserCreated = true;
  }
  return { adminCreated, demoUserCreated };
}

const globalForBootstrap = globalThis as unknown as { __fleetplanAuthBootstrap?: WeakMap<Db, Promise<unknown>> };

/** once per database handle per process */
export function ensureAuthBootstrap(db: Db): Promise<unknown> {
  globalForBootstrap.__fleetplanAuthBootstrap ??= new WeakMap();
  const map = globalForBootstrap.__fleetplanAuthBootstrap;
  let done = map.get(db);
  if (!done) {
    done = bootstrapAuth(db);
    map.set(db, done);
  }
  return done;
}

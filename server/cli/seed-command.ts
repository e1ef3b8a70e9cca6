// `npm run db:seed`: seeds the demo fleet (simulated, from real update-graph data).
// Options: --reset  replace what the database holds (refused without it unless the database is
//          empty);  --if-empty  do nothing when it holds anything;
//          --clusters N  a fleet of about N clusters (the demo's shape, scaled; default 56).
// FLEETPLAN_DEMO_CLUSTERS=N does the same for the first start of `npm start`.
import path from 'node:path';
import { closeDatabase, describeDatabase, openDatabaseAt } from '@/db/connect';
import { bootstrapAuth } from '@/server/auth/bootstrap';
import { MAX_DEMO_CLUSTERS, parseEnv, type RawEnv } from '@/server/env';
import { appendAudit } from '@/server/repositories/audit-repository';
import { countDatabaseContents, type DatabaseContents } from '@/server/repositories/database-contents-repository';
import { wipeFleetData } from '@/server/repositories/demo-fleet-repository';
import { withTransaction } from '@/server/repositories/transaction';
import { demoScaleForClusters, seedDemo } from '@/server/services/demo-seed-service';
import { osUserName } from './os-user';

type Log = (line: string) => void;

/** The demo's scale for `--clusters N`; a clear error for anything but a count. */
export function demoScale(clusters: string | undefined): number {
  if (clusters === undefined || clusters === '') return 1;
  const n = Number(clusters);
  if (!Number.isInteger(n) || n < 1 || n > MAX_DEMO_CLUSTERS)
    throw new Error(`--clusters must be a whole number from 1 to ${MAX_DEMO_CLUSTERS}, not '${clusters}'`);
  return demoScaleForClusters(n);
}

function describeContents(c: DatabaseContents): string {
  const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
  return [
    plural(c.organizations, 'organization'),
    plural(c.clusters, 'cluster'),
    plural(c.policyRevisions, 'policy revision'),
    plural(c.users, 'user'),
    plural(c.apiTokens, 'API token'),
    plural(c.webhooks, 'webhook'),
  ].join(', ');
}

function hasAnyContents(c: DatabaseContents): boolean {
  return Object.values(c).some((n) => n > 0);
}

export const SEED_RESET_AUDIT_ACTION = 'database.seed.reset';

type SeedArgs = { reset: boolean; ifEmpty: boolean; scale: number };

export function parseSeedArgs(argv: string[]): SeedArgs {
  const args: SeedArgs = { reset: false, ifEmpty: false, scale: 1 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--reset') args.reset = true;
    else if (arg === '--if-empty') args.ifEmpty = true;
    else if (arg === '--clusters') {
      const value = argv[++i];
      if (value === undefined) throw new Error('--clusters needs a number of clusters');
      args.scale = demoScale(value);
    } else throw new Error(`unknown argument ${arg} (options: --reset, --if-empty, --clusters N)`);
  }
  return args;
}

/**
 * `npm run db:seed`: the demo fleet into an empty database. A database holding anything is only
 * replaced with --reset (audited, and the audit entry, the wipe and the new fleet are one
 * transaction); without it the command refuses and says what would be lost.
 * Exit 0 seeded (or --if-empty and not empty), 1 refused or failed, 2 bad arguments.
 */
export async function runSeed(
  argv: string[],
  env: RawEnv = process.env,
  log: Log = (l) => console.log(l),
  warn: Log = (l) => console.error(l),
): Promise<number> {
  let args: SeedArgs;
  try {
    args = parseSeedArgs(argv);
  } catch (err) {
    warn(`fleetplan db:seed: ${(err as Error).message}`);
    return 2;
  }
  const settings = parseEnv(env);
  const file = describeDatabase(settings.database);
  const db = await openDatabaseAt(settings.database);
  try {
    const contents = await countDatabaseContents(db);
    const holdsData = hasAnyContents(contents);
    if (holdsData && args.ifEmpty) {
      log(`fleetplan db:seed: ${file} already holds data (${describeContents(contents)}); not seeding`);
      return 0;
    }
    if (holdsData && !args.reset) {
      warn(
        `fleetplan db:seed: ${file} is not empty (${describeContents(contents)}); nothing changed. ` +
          `'npm run db:seed -- --reset' would delete the organization, its clusters, policy revisions, history and decisions ` +
          `(users, API tokens, webhooks and the audit log are kept) and turn the demo sign-in on.`,
      );
      return 1;
    }
    const now = new Date();
    const { clusters } = await withTransaction(db, async (tx) => {
      if (holdsData) {
        await appendAudit(tx, {
          organizationId: null,
          at: now,
          actor: `cli:${osUserName()}`,
          action: SEED_RESET_AUDIT_ACTION,
          target: `database:${settings.database.kind === 'sqlite' ? path.resolve(file) : file}`,
          before: contents,
          after: { seeded: 'demo fleet', demoSignIn: settings.demoLogin !== false },
        });
        await wipeFleetData(tx);
      }
      return await seedDemo(tx, now, args.scale);
    });
    if (holdsData) log(`fleetplan db:seed: --reset: deleted the fleet data (${describeContents(contents)} before)`);
    log(`fleetplan db:seed: seeded the simulated demo fleet (${clusters} clusters) into ${file}`);
    await bootstrapAuth(db, { env: settings, log, demoSeeded: true });
    return 0;
  } finally {
    await closeDatabase(db);
  }
}

async function main(): Promise<void> {
  try {
    process.exitCode = await runSeed(process.argv.slice(2));
  } catch (err) {
    const debug = process.env.FLEETPLAN_DEBUG === '1';
    console.error(`fleetplan db:seed: ${err instanceof Error ? (debug ? (err.stack ?? err.message) : err.message) : String(err)}`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(__filename)) void main();

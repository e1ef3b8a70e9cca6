// Seeds the demo fleet (simulated, from real update-graph data). Run: `npm run db:seed`
// Options: --reset  replace what the database holds (refused without it unless the database is
//          empty);  --if-empty  do nothing when it holds anything;
//          --clusters N  a fleet of about N clusters (the demo's shape, scaled; default 56).
// FLEETPLAN_DEMO_CLUSTERS=N does the same for the first start of `npm start`.
import fs from 'node:fs';
import path from 'node:path';
import { openDatabase, type Db } from './open-database';
import { getEnv, MAX_DEMO_CLUSTERS, parseEnv, type FleetplanEnv, type RawEnv } from '@/server/env';
import { generateDemoFleet, type DemoGraphDocument } from '@/server/demo/demo-fleet';
import { insertDemoFleet, isDatabaseEmpty, wipeFleetData } from '@/server/repositories/demo-fleet-repository';
import { upsertGraph } from '@/server/repositories/update-graph-repository';
import { bootstrapAuth } from '@/server/auth/bootstrap';
import { appendAudit } from '@/server/repositories/audit-repository';
import { osUserName } from '@/server/cli/os-user';
import { countDatabaseContents, type DatabaseContents } from '@/server/repositories/database-contents-repository';

const DEMO_DATA = path.join(process.cwd(), 'server', 'demo', 'data');

export const DEMO_GRAPHS = [
  {
    file: 'stable-4.13.json',
    channel: 'stable-4.13',
    capturedAt: '2024-07-02T00:00:00Z',
    source: 'openshift/oc-mirror@855b64a3 testdata (real Cincinnati response)',
  },
  {
    file: 'union-4.6-4.9.json',
    channel: null,
    capturedAt: '2022-12-15T00:00:00Z',
    source: 'union of real stable-4.7/4.8/4.9 responses, openshift/cincinnati@49c914f8 e2e testdata',
  },
];

// The demo has 54 managed clusters (scaled) and 2 unmanaged sandboxes (not scaled).
const DEMO_MANAGED = 54;

/** The demo's scale for a fleet of about `clusters` clusters (a count already checked). */
function scaleForClusters(clusters: number): number {
  return Math.max(1, Math.round((clusters - 2) / DEMO_MANAGED));
}

/** The demo's scale for `--clusters N`; a clear error for anything but a count. */
export function demoScale(clusters: string | undefined): number {
  if (clusters === undefined || clusters === '') return 1;
  const n = Number(clusters);
  if (!Number.isInteger(n) || n < 1 || n > MAX_DEMO_CLUSTERS)
    throw new Error(`--clusters must be a whole number from 1 to ${MAX_DEMO_CLUSTERS}, not '${clusters}'`);
  return scaleForClusters(n);
}

export function seedDemo(db: Db, now: Date, scale = 1): { clusters: number } {
  const graphText = fs.readFileSync(path.join(DEMO_DATA, 'stable-4.13.json'), 'utf8');
  // The two newest releases are held back: the simulator publishes them as simulated days pass.
  const fleet = generateDemoFleet(JSON.parse(graphText) as DemoGraphDocument, now, undefined, { holdBackReleases: 2, scale });
  insertDemoFleet(db, fleet, now);
  for (const g of DEMO_GRAPHS) {
    const document = fs.readFileSync(path.join(DEMO_DATA, g.file), 'utf8');
    const parsed = JSON.parse(document) as { nodes: unknown[]; edges: unknown[] };
    upsertGraph(db, {
      name: g.file.replace(/\.json$/, ''),
      channel: g.channel,
      architecture: 'amd64',
      capturedAt: new Date(g.capturedAt),
      source: g.source,
      nodeCount: parsed.nodes.length,
      edgeCount: parsed.edges.length,
      document,
      importedAt: now,
    });
  }
  return { clusters: fleet.clusters.length };
}

type Log = (line: string) => void;

/**
 * start-up, with the settings scripts/start.mjs has already checked: migrate; seed the demo fleet
 * into an empty database when the provider is the simulator and FLEETPLAN_SEED_DEMO is not 0 (a
 * real provider's database starts empty); make sure someone can sign in. Returns the open handle:
 * scripts/start.mjs keeps it for the server's whole life, so `fleetplan restore` sees (through
 * SQLite's lock) that a server is running even before the app first touches the database.
 */
export async function prepareDatabase(settings: FleetplanEnv = getEnv(), log: Log = (line) => console.log(line)): Promise<Db> {
  const file = settings.databaseFile;
  const db = openDatabase(file);
  try {
    const empty = isDatabaseEmpty(db);
    const simulator = settings.provider.name === 'simulator';
    const seeding = empty && simulator && settings.seedDemo;
    if (seeding) {
      const { clusters } = seedDemo(db, new Date(), settings.demoClusters === undefined ? 1 : scaleForClusters(settings.demoClusters));
      log(`fleetplan: first start: seeded the simulated demo fleet (${clusters} clusters) into ${file}`);
    } else if (empty && !simulator) {
      log(
        `fleetplan: provider ${settings.provider.name}: ${file} starts empty (the demo fleet is only seeded for the simulator); ` +
          `import your organization with: npx --no fleetplan import FILE`,
      );
    } else if (empty) {
      log(`fleetplan: FLEETPLAN_SEED_DEMO=0: ${file} starts empty`);
    }
    await bootstrapAuth(db, { env: settings, log, demoSeeded: seeding });
    return db;
  } catch (err) {
    db.$client.close();
    throw err;
  }
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
 * replaced with --reset (audited); without it the command refuses and says what would be lost.
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
  const file = settings.databaseFile;
  const db = openDatabase(file);
  try {
    const contents = countDatabaseContents(db);
    if (hasAnyContents(contents)) {
      if (args.ifEmpty) {
        log(`fleetplan db:seed: ${file} already holds data (${describeContents(contents)}); not seeding`);
        return 0;
      }
      if (!args.reset) {
        warn(
          `fleetplan db:seed: ${file} is not empty (${describeContents(contents)}); nothing changed. ` +
            `'npm run db:seed -- --reset' would delete the organization, its clusters, policy revisions, history and decisions ` +
            `(users, API tokens, webhooks and the audit log are kept) and turn the demo sign-in on.`,
        );
        return 1;
      }
      appendAudit(db, {
        at: new Date(),
        actor: `cli:${osUserName()}`,
        action: SEED_RESET_AUDIT_ACTION,
        target: `database:${path.resolve(file)}`,
        before: contents,
        after: { seeded: 'demo fleet', demoSignIn: settings.demoLogin !== false },
      });
      wipeFleetData(db);
      log(`fleetplan db:seed: --reset: deleted the fleet data (${describeContents(contents)} before)`);
    }
    const { clusters } = seedDemo(db, new Date(), args.scale);
    log(`fleetplan db:seed: seeded the simulated demo fleet (${clusters} clusters) into ${file}`);
    await bootstrapAuth(db, { env: settings, log, demoSeeded: true });
    return 0;
  } finally {
    db.$client.close();
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

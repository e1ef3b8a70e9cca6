// Seeds the demo fleet (simulated, from real update-graph data). Run: `npm run db:seed`
// Options: --reset  wipe fleet data first;  --if-empty  do nothing when an organization exists;
//          --clusters N  a fleet of about N clusters (the demo's shape, scaled; default 56).
// FLEETPLAN_DEMO_CLUSTERS=N does the same for the first start of `npm start`.
import fs from 'node:fs';
import path from 'node:path';
import { openDatabase, type Db } from './open-database';
import { EnvError, getEnv } from '@/server/env';
import { generateDemoFleet, type DemoGraphDocument } from '@/server/demo/demo-fleet';
import { insertDemoFleet, isDatabaseEmpty, wipeFleetData } from '@/server/repositories/demo-fleet-repository';
import { upsertGraph } from '@/server/repositories/update-graph-repository';
import { bootstrapAuth } from '@/server/auth/bootstrap';

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

/** The demo's scale for about `clusters` clusters; a clear error for anything but a count. */
export function demoScale(clusters: string | undefined): number {
  if (clusters === undefined || clusters === '') return 1;
  const n = Number(clusters);
  if (!Number.isInteger(n) || n < 1 || n > 100_000)
    throw new Error(`--clusters must be a whole number from 1 to 100000, not '${clusters}'`);
  return Math.max(1, Math.round((n - 2) / DEMO_MANAGED));
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

/** start-up: migrate, and seed the demo fleet when the database holds no organization */
export async function prepareDatabase(): Promise<void> {
  const env = getEnv();
  const file = env.databaseFile;
  const db = openDatabase(file);
  const seeding = isDatabaseEmpty(db) && env.seedDemo;
  if (seeding) {
    const { clusters } = seedDemo(db, new Date(), demoScale(env.demoClusters?.toString()));
    console.log(`fleetplan: first start: seeded the simulated demo fleet (${clusters} clusters) into ${file}`);
  }
  await bootstrapAuth(db, { demoSeeded: seeding });
  db.$client.close();
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const args = new Set(argv);
  const clustersAt = argv.indexOf('--clusters');
  let scale: number;
  try {
    if (clustersAt >= 0 && argv[clustersAt + 1] === undefined) throw new Error('--clusters needs a number of clusters');
    scale = demoScale(clustersAt >= 0 ? argv[clustersAt + 1] : undefined);
  } catch (err) {
    console.error(`fleetplan: ${(err as Error).message}`);
    process.exitCode = 2;
    return;
  }
  const file = getEnv().databaseFile;
  const db = openDatabase(file);
  if (args.has('--if-empty') && !isDatabaseEmpty(db)) {
    console.log(`fleetplan: ${file} already holds a fleet; not seeding`);
    return;
  }
  if (args.has('--reset') || !isDatabaseEmpty(db)) wipeFleetData(db);
  const { clusters } = seedDemo(db, new Date(), scale);
  console.log(`fleetplan: seeded the simulated demo fleet (${clusters} clusters) into ${file}`);
  await bootstrapAuth(db, { demoSeeded: true });
  db.$client.close();
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(__filename))
  main().catch((err: unknown) => {
    console.error(err instanceof EnvError ? `fleetplan: ${err.message}` : err);
    process.exitCode = 1;
  });

// The 10,000-cluster fleet the tick and page-data benchmarks run on, in a fresh SQLite file, or
// that file copied into a throw-away PostgreSQL server the way `fleetplan migrate-db` copies one.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { copySqliteToPostgres, openSqliteSource } from '@/db/copy-to-postgres';
import { openDatabase, type Db } from '@/db/open-database';
import { migratePostgres, openPostgres } from '@/db/open-postgres';
import { asFleetplanDb } from '@/db/postgres-handle';
import type { FakeCluster } from '@/server/integrations/providers/fake-provider';
import { insertTestFleet, type TestCluster } from '@/server/scheduler/test-fleet';
import { startThrowawayPostgres } from '@/tests/support/throwaway-postgres';

export const BENCH_FLEET_SIZE = 10_000;
export const BENCH_FLEET_START = new Date('2021-08-30T18:00:00Z');

export interface BenchFleet {
  db: Db;
  fakeClusters: FakeCluster[];
  clusterNames: string[];
  /** closes the database and deletes its directory */
  dispose(): void | Promise<void>;
}

/** the database a bench runs on */
export type BenchDatabase = 'sqlite' | 'postgres';

/** The bench fleet on `database`: SQLite as createBenchFleet makes it, or that file copied into PostgreSQL. */
export async function openBenchFleet(database: BenchDatabase, label: string): Promise<BenchFleet> {
  const sqlite = await createBenchFleet(label);
  if (database === 'sqlite') return sqlite;
  const file = sqlite.db.$client.name;
  sqlite.db.$client.close();
  let server: Awaited<ReturnType<typeof startThrowawayPostgres>> | undefined;
  let pg: ReturnType<typeof openPostgres> | undefined;
  try {
    server = await startThrowawayPostgres();
    pg = openPostgres(await server.createDatabase('fleetplan_bench'));
    await migratePostgres(pg);
    const source = openSqliteSource(file);
    try {
      await copySqliteToPostgres(source, pg);
    } finally {
      source.close();
    }
    // fresh planner statistics, as autovacuum would gather them on a live server after a bulk load
    await pg.$client.query('analyze');
  } catch (err) {
    await pg?.$client.end();
    server?.stop();
    throw err;
  } finally {
    await sqlite.dispose();
  }
  const pool = pg.$client;
  const running = server;
  return {
    db: asFleetplanDb(pg),
    fakeClusters: sqlite.fakeClusters,
    clusterNames: sqlite.clusterNames,
    async dispose() {
      await pool.end();
      running.stop();
    },
  };
}

export async function createBenchFleet(label: string): Promise<BenchFleet> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `fleetplan-${label}-bench-`));
  const db = openDatabase(path.join(dir, 'bench.db'));
  const releases = Array.from({ length: 30 }, (_, i) => `4.13.${i + 1}`);
  const sectors = [
    { name: 'dev' },
    { name: 'stage', dependencies: ['dev'] },
    { name: 'prod', dependencies: ['stage'], maxParallelUpgrades: '10%' },
  ];
  const clusters: TestCluster[] = Array.from({ length: BENCH_FLEET_SIZE }, (_, i) => {
    const sector = i % 10 === 0 ? 'dev' : i % 10 < 4 ? 'stage' : 'prod';
    return {
      name: `cluster-${String(i).padStart(5, '0')}`,
      version: `4.13.${1 + (i % 20)}`,
      releases,
      workloads: [`wl-${i % 25}`, ...(i % 3 === 0 ? ['shared'] : [])],
      schedule: i % 4 === 0 ? '* * * * *' : '0 13 * * 1-5',
      soakDays: sector === 'dev' ? 0 : sector === 'stage' ? 2 : 7,
      sector,
      ...(sector === 'prod' ? { mutexes: [`m-${i % 200}`] } : {}),
      ...(i % 97 === 0 ? { healthIssues: ['ClusterOperator dns Degraded'] } : {}),
    };
  });
  const { fakeClusters } = await insertTestFleet(db, { sectors, clusters }, BENCH_FLEET_START);
  return {
    db,
    fakeClusters,
    clusterNames: clusters.map((c) => c.name),
    dispose() {
      db.$client.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

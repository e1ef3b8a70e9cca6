// Replicas starting together on one fresh PostgreSQL (issue 15): each runs `npm start`'s
// preparation at the same moment; the database is migrated once, the demo fleet seeded once and
// the first users created once, and every replica starts.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { closeDatabase } from '@/db/connect';
import { prepareDatabase } from '@/server/cli/prepare-database';
import { parseEnv } from '@/server/env';
import { countDatabaseContents } from '@/server/repositories/database-contents-repository';
import { listOrganizations } from '@/server/repositories/organization-repository';
import { listUsers } from '@/server/repositories/user-repository';
import { startThrowawayPostgres, type ThrowawayPostgres } from '@/tests/support/throwaway-postgres';

let server: ThrowawayPostgres;
beforeAll(async () => {
  server = await startThrowawayPostgres();
}, 60_000);
afterAll(() => server?.stop());

it('three replicas preparing one empty database at once: one seeds, all start, nothing twice', async () => {
  const url = await server.createDatabase();
  const settings = parseEnv({ DATABASE_URL: url, FLEETPLAN_SECRET_KEY: 'a'.repeat(64), FLEETPLAN_ADMIN_PASSWORD: 'correct horse battery' });
  const logs: string[][] = [[], [], []];
  const dbs = await Promise.all(logs.map((lines) => prepareDatabase(settings, (line) => lines.push(line))));
  try {
    const seeded = logs.filter((lines) => lines.some((l) => l.includes('seeded the simulated demo fleet')));
    expect(seeded).toHaveLength(1);
    expect((await listOrganizations(dbs[0]!)).length).toBe(1);
    const contents = await countDatabaseContents(dbs[1]!);
    expect(contents.clusters).toBeGreaterThan(0);
    const usernames = (await listUsers(dbs[2]!)).map((u) => u.username).sort();
    expect(usernames).toEqual([...new Set(usernames)]);
    expect(usernames).toContain('admin');
  } finally {
    await Promise.all(dbs.map((db) => closeDatabase(db)));
  }
});

it('refuses to start on PostgreSQL without FLEETPLAN_SECRET_KEY, naming it', async () => {
  const url = await server.createDatabase();
  await expect(prepareDatabase(parseEnv({ DATABASE_URL: url }), () => undefined)).rejects.toThrow(
    /^FLEETPLAN_SECRET_KEY is required with PostgreSQL: every replica must seal and open webhook secrets with the same key/,
  );
});

// What the e2e database holds (the demo fleet, seeded by scripts/e2e-server.mjs), read directly so
// the page objects can check pages against it. Each accessor fails when the seed lacks what a test
// needs, so no assertion is skipped because the data happened to be missing.
import Database from 'better-sqlite3';

/** Opens the e2e server's database file (read-only unless asked); without the file name, better-sqlite3 would open an empty in-memory database. */
export function openE2eDatabase({ readonly = true } = {}): Database.Database {
  const file = process.env.E2E_DATABASE_FILE;
  if (!file) throw new Error('E2E_DATABASE_FILE is not set (playwright.config.ts sets it)');
  return new Database(file, { readonly });
}

function one<T>(sql: string, what: string): T {
  const db = openE2eDatabase();
  try {
    const row = db.prepare(sql).get() as T | undefined;
    if (row === undefined) throw new Error(`the seeded demo fleet has no ${what}`);
    return row;
  } finally {
    db.close();
  }
}

/** the first managed cluster whose schedule names a time zone */
export function managedCluster(): { name: string; version: string } {
  return one(
    "select name, version from clusters where upgrade_policy is not null and json_extract(upgrade_policy, '$.schedule.location') is not null order by name limit 1",
    'managed cluster with a schedule location',
  );
}

/** the organization's first blocked-version pattern */
export function blockedVersion(): { pattern: string } {
  return one('select pattern from blocked_versions order by id limit 1', 'blocked version');
}

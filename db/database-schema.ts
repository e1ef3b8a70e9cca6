// Is a SQLite file exactly a fleetplan database? The expected shape is not written down here: it
// is read from a temporary in-memory database migrated with this build's migrations (up to the
// file's own migration count, so a backup taken before an upgrade still verifies and is migrated
// forward when the server opens it). Compared: every schema object (tables with their columns'
// types/notnull/defaults/primary keys, foreign keys, indexes with their columns, and the SQL text
// that also carries CHECK and WHERE clauses), so an added trigger or view, a missing index or a
// changed column is refused, and drizzle's migration history (hash and timestamp of each one).
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MIGRATIONS_FOLDER } from '@/db/open-database';

const MIGRATIONS_TABLE = '__drizzle_migrations';
/** tables SQLite itself may add (ANALYZE statistics); they hold no data of ours and run no code */
const SQLITE_STATISTICS_TABLES = new Set(['sqlite_stat1', 'sqlite_stat4']);
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

export type SchemaVerdict = { ok: true; migrations: number } | { ok: false; problems: string[] };

type Migration = { hash: string; createdAt: number };

export function hasSqliteHeader(firstBytes: Buffer): boolean {
  return firstBytes.length >= SQLITE_HEADER.length && firstBytes.subarray(0, SQLITE_HEADER.length).equals(SQLITE_HEADER);
}

function normalizeSql(text: string | null): string {
  return (text ?? '').replace(/\s+/g, ' ').trim();
}

/** One comparable line per schema object, keyed by "type name". */
export function describeSchema(db: Database.Database): Map<string, string> {
  const objects = db.prepare('select type, name, tbl_name as tableName, sql from sqlite_master order by type, name').all() as {
    type: string;
    name: string;
    tableName: string;
    sql: string | null;
  }[];
  const described = new Map<string, string>();
  for (const o of objects) {
    if (o.type === 'table' && SQLITE_STATISTICS_TABLES.has(o.name)) continue;
    const parts = [`on ${o.tableName}`, `sql: ${normalizeSql(o.sql)}`];
    if (o.type === 'table') {
      const columns = db.prepare('select name, type, "notnull", dflt_value as dflt, pk, hidden from pragma_table_xinfo(?)').all(o.name);
      const foreignKeys = db.prepare('select "table", "from", "to", on_update, on_delete from pragma_foreign_key_list(?)').all(o.name);
      parts.push(`columns: ${JSON.stringify(columns)}`, `foreign keys: ${JSON.stringify(foreignKeys)}`);
    } else if (o.type === 'index') {
      const columns = db.prepare('select seqno, name, "desc", coll, key from pragma_index_xinfo(?)').all(o.name);
      const info = db.prepare('select "unique", origin, partial from pragma_index_list(?) where name = ?').get(o.tableName, o.name);
      parts.push(`index: ${JSON.stringify(info)}`, `columns: ${JSON.stringify(columns)}`);
    }
    described.set(`${o.type} ${o.name}`, parts.join('\n'));
  }
  described.set('pragma user_version', String(db.pragma('user_version', { simple: true })));
  described.set('pragma application_id', String(db.pragma('application_id', { simple: true })));
  return described;
}

function ourMigrations(folder: string): Migration[] {
  return readMigrationFiles({ migrationsFolder: folder }).map((m) => ({ hash: m.hash, createdAt: m.folderMillis }));
}

/** the schema of a new database migrated with the first `count` of this build's migrations */
function expectedSchema(folder: string, count: number): Map<string, string> {
  const journalFile = path.join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(fs.readFileSync(journalFile, 'utf8')) as { entries: { tag: string }[] };
  const partial = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-migrations-'));
  const memory = new Database(':memory:');
  try {
    fs.mkdirSync(path.join(partial, 'meta'));
    const entries = journal.entries.slice(0, count);
    fs.writeFileSync(path.join(partial, 'meta', '_journal.json'), JSON.stringify({ ...journal, entries }));
    for (const e of entries) fs.copyFileSync(path.join(folder, `${e.tag}.sql`), path.join(partial, `${e.tag}.sql`));
    migrate(drizzle(memory), { migrationsFolder: partial });
    return describeSchema(memory);
  } finally {
    memory.close();
    fs.rmSync(partial, { recursive: true, force: true });
  }
}

function appliedMigrations(db: Database.Database): Migration[] | null {
  const table = db.prepare("select 1 from sqlite_master where type = 'table' and name = ?").get(MIGRATIONS_TABLE);
  if (!table) return null;
  const columns = new Set(
    (db.prepare('select name from pragma_table_info(?)').all(MIGRATIONS_TABLE) as { name: string }[]).map((c) => c.name),
  );
  if (!columns.has('hash') || !columns.has('created_at')) return null;
  const rows = db.prepare(`select hash, created_at as createdAt from "${MIGRATIONS_TABLE}" order by rowid`).all() as {
    hash: unknown;
    createdAt: unknown;
  }[];
  return rows.map((r) => ({ hash: String(r.hash), createdAt: Number(r.createdAt) }));
}

const MAX_LISTED = 8;

function compare(expected: Map<string, string>, actual: Map<string, string>): string[] {
  const problems: string[] = [];
  for (const [key, value] of actual) {
    const want = expected.get(key);
    if (want === undefined) problems.push(`unexpected ${key}`);
    else if (want !== value) {
      const wantParts = want.split('\n');
      const differing = value.split('\n').find((part, i) => part !== wantParts[i]) ?? value;
      problems.push(`${key} differs from this build's (${differing.slice(0, 160)})`);
    }
  }
  for (const key of expected.keys()) if (!actual.has(key)) problems.push(`missing ${key}`);
  return problems;
}

/** Checks `db` (opened on the file to verify) against this build's migrations. */
export function verifyFleetplanSchema(db: Database.Database, migrationsFolder = MIGRATIONS_FOLDER): SchemaVerdict {
  const ours = ourMigrations(migrationsFolder);
  const applied = appliedMigrations(db);
  if (applied === null) return { ok: false, problems: [`no drizzle migration history (${MIGRATIONS_TABLE}): not a fleetplan database`] };
  if (applied.length === 0) return { ok: false, problems: [`${MIGRATIONS_TABLE} is empty: not a fleetplan database`] };
  if (applied.length > ours.length) {
    return {
      ok: false,
      problems: [`it has ${applied.length} migrations and this build only ${ours.length}: made by a newer fleetplan? upgrade first`],
    };
  }
  for (let i = 0; i < applied.length; i++) {
    const a = applied[i]!;
    const o = ours[i]!;
    if (a.hash !== o.hash || a.createdAt !== o.createdAt) {
      return {
        ok: false,
        problems: [
          `migration ${i + 1} is not this build's (hash ${a.hash.slice(0, 12)}… at ${a.createdAt}, expected ${o.hash.slice(0, 12)}… at ${o.createdAt})`,
        ],
      };
    }
  }
  const problems = compare(expectedSchema(migrationsFolder, applied.length), describeSchema(db));
  if (problems.length > MAX_LISTED) problems.splice(MAX_LISTED, problems.length, `and ${problems.length - MAX_LISTED} more differences`);
  return problems.length === 0 ? { ok: true, migrations: applied.length } : { ok: false, problems };
}

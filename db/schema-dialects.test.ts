// db/schema.ts (SQLite) and db/pg-schema.ts (PostgreSQL) describe the same database: the same
// tables, columns (name, value kind, not null, default, key, unique), primary keys, indexes (with
// their columns, uniqueness and WHERE), foreign keys (with their on delete/update) and checks;
// and each table's row types (select and insert) are the same in both, checked by tsc below.
import { getTableName, is, isTable, SQL, type InferInsertModel, type InferSelectModel, type Table } from 'drizzle-orm';
import {
  getTableConfig as getPgTableConfig,
  index,
  integer,
  PgDialect,
  pgTable,
  primaryKey,
  text,
  type PgTable,
} from 'drizzle-orm/pg-core';
import { getTableConfig as getSqliteTableConfig, SQLiteSyncDialect, type SQLiteTable } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import * as pgSchema from './pg-schema';
import * as sqliteSchema from './schema';

type Described = { name: string; lines: string[] };

const sqliteDialect = new SQLiteSyncDialect();
const pgDialect = new PgDialect();

/** SQL text with the dialect's parameter markers made alike, so a WHERE or CHECK compares across dialects */
function sqlText(value: SQL | undefined, render: (s: SQL) => { sql: string; params: unknown[] }): string {
  if (!value) return '';
  const query = render(value);
  return `${query.sql.replace(/\$\d+/g, '?')} ${JSON.stringify(query.params)}`;
}

function columnName(c: unknown): string {
  return is(c, SQL) ? `sql(${sqlText(c, (s) => pgDialect.sqlToQuery(s))})` : String((c as { name?: unknown }).name);
}

type AnyColumn = {
  name: string;
  dataType: string;
  notNull: boolean;
  hasDefault: boolean;
  primary: boolean;
  isUnique: boolean;
  uniqueName: string | undefined;
  default: unknown;
  defaultFn: unknown;
  enumValues: readonly string[] | undefined;
};

function describeColumn(c: AnyColumn): string {
  const defaultValue = is(c.default, SQL) ? 'sql' : JSON.stringify(c.default);
  return [
    `column ${c.name}: ${c.dataType}`,
    c.notNull ? 'not null' : 'null',
    c.hasDefault ? `default ${defaultValue}${c.defaultFn ? ' (function)' : ''}` : 'no default',
    c.primary ? 'primary key' : '',
    c.isUnique ? `unique ${c.uniqueName}` : '',
    c.enumValues ? `enum ${c.enumValues.join('|')}` : '',
  ]
    .filter(Boolean)
    .join(', ');
}

type AnyConfig = {
  name: string;
  columns: AnyColumn[];
  indexes: { config: { name: string; columns: unknown[]; unique: boolean; where?: SQL } }[];
  foreignKeys: {
    getName(): string;
    onDelete?: string;
    onUpdate?: string;
    reference(): { columns: { name: string }[]; foreignColumns: { name: string }[]; foreignTable: Table };
  }[];
  checks: { name: string; value: SQL }[];
  primaryKeys: { getName(): string; columns: { name: string }[] }[];
  uniqueConstraints: { getName(): string | undefined; columns: { name: string }[] }[];
};

function describeTable(config: AnyConfig, render: (s: SQL) => { sql: string; params: unknown[] }): Described {
  const lines = [
    ...config.columns.map(describeColumn),
    ...config.primaryKeys.map((pk) => `primary key (${pk.columns.map((c) => c.name).join(', ')})`),
    ...config.uniqueConstraints.map((u) => `unique ${u.getName() ?? ''} (${u.columns.map((c) => c.name).join(', ')})`),
    ...config.indexes.map(
      ({ config: i }) =>
        `${i.unique ? 'unique ' : ''}index ${i.name} (${i.columns.map(columnName).join(', ')})${i.where ? ` where ${sqlText(i.where, render)}` : ''}`,
    ),
    ...config.foreignKeys.map((fk) => {
      const ref = fk.reference();
      return `foreign key ${fk.getName()} (${ref.columns.map((c) => c.name).join(', ')}) references ${getTableName(ref.foreignTable)} (${ref.foreignColumns
        .map((c) => c.name)
        .join(', ')}) on delete ${fk.onDelete ?? 'no action'} on update ${fk.onUpdate ?? 'no action'}`;
    }),
    ...config.checks.map((c) => `check ${c.name}: ${sqlText(c.value, render)}`),
  ];
  return { name: config.name, lines: lines.sort() };
}

function tablesOf(schema: Record<string, unknown>): Map<string, Table> {
  return new Map(Object.entries(schema).filter((e): e is [string, Table] => isTable(e[1])));
}

/** what differs between two schema modules: one line per table or property found on one side only */
export function schemaDifferences(sqliteTables: Record<string, unknown>, pgTables: Record<string, unknown>): string[] {
  const sqlite = tablesOf(sqliteTables);
  const pg = tablesOf(pgTables);
  const differences: string[] = [];
  for (const key of new Set([...sqlite.keys(), ...pg.keys()])) {
    const s = sqlite.get(key);
    const p = pg.get(key);
    if (!s || !p) {
      differences.push(`${key}: only in the ${s ? 'SQLite' : 'PostgreSQL'} schema`);
      continue;
    }
    const sqliteConfig: unknown = getSqliteTableConfig(s as SQLiteTable);
    const pgConfig: unknown = getPgTableConfig(p as PgTable);
    const sd = describeTable(sqliteConfig as AnyConfig, (q) => sqliteDialect.sqlToQuery(q));
    const pd = describeTable(pgConfig as AnyConfig, (q) => pgDialect.sqlToQuery(q));
    if (sd.name !== pd.name) differences.push(`${key}: table ${sd.name} in SQLite, ${pd.name} in PostgreSQL`);
    for (const line of sd.lines) if (!pd.lines.includes(line)) differences.push(`${sd.name}: SQLite only: ${line}`);
    for (const line of pd.lines) if (!sd.lines.includes(line)) differences.push(`${pd.name}: PostgreSQL only: ${line}`);
  }
  return differences;
}

// ---- types: each table's select and insert rows are the same in both dialects (checked by tsc)
type Same<A, B> = [A] extends [B]
  ? [B] extends [A]
    ? [keyof A] extends [keyof B]
      ? [keyof B] extends [keyof A]
        ? true
        : false
      : false
    : false
  : false;
type TablesIn<M> = { [K in keyof M as M[K] extends Table ? K : never]: M[K] };
type SqliteTables = TablesIn<typeof sqliteSchema>;
type PgTables = TablesIn<typeof pgSchema>;
type TableKeys = keyof (SqliteTables & PgTables);
/** the tables whose rows differ (or that one schema lacks): `never` when the schemas agree */
type RowTypeMismatches = {
  [K in TableKeys]: K extends keyof SqliteTables
    ? K extends keyof PgTables
      ? Same<InferSelectModel<SqliteTables[K]>, InferSelectModel<PgTables[K]>> extends true
        ? Same<InferInsertModel<SqliteTables[K]>, InferInsertModel<PgTables[K]>> extends true
          ? never
          : K
        : K
      : K
    : K;
}[TableKeys];
// a tsc error here names the tables whose row types differ
const rowTypesAgree: [RowTypeMismatches] extends [never] ? true : RowTypeMismatches = true;

// a PostgreSQL `settings` with one column more: its rows must not pass for the SQLite ones
const settingsWithExtraColumn = pgTable('settings', (t) => ({
  key: t.text('key').primaryKey(),
  value: t.jsonb('value').$type<unknown>().notNull(),
  updatedAt: t.timestamp('updated_at', { mode: 'date', precision: 3, withTimezone: true }).notNull(),
  note: t.text('note').notNull(),
}));
// @ts-expect-error a column in one schema only makes the select rows differ
const extraColumnPasses: Same<InferSelectModel<typeof sqliteSchema.settings>, InferSelectModel<typeof settingsWithExtraColumn>> = true;
const settingsWithOptionalExtra = pgTable('settings', (t) => ({
  key: t.text('key').primaryKey(),
  value: t.jsonb('value').$type<unknown>().notNull(),
  updatedAt: t.timestamp('updated_at', { mode: 'date', precision: 3, withTimezone: true }).notNull(),
  note: t.text('note'),
}));
// @ts-expect-error even a nullable extra column (optional on insert) makes the insert rows differ
const optionalExtraPasses: Same<InferInsertModel<typeof sqliteSchema.settings>, InferInsertModel<typeof settingsWithOptionalExtra>> = true;

describe('the SQLite and PostgreSQL schemas', () => {
  it('have the same tables, columns, keys, indexes, foreign keys and checks', () => {
    expect(tablesOf(sqliteSchema).size).toBeGreaterThan(30);
    expect(schemaDifferences(sqliteSchema, pgSchema)).toEqual([]);
    expect([rowTypesAgree, extraColumnPasses, optionalExtraPasses]).toEqual([true, true, true]);
  });

  it('differ when a column is added to one of them only', () => {
    const altered = { ...pgSchema, settings: settingsWithExtraColumn };
    expect(schemaDifferences(sqliteSchema, altered)).toEqual(['settings: PostgreSQL only: column note: string, not null, no default']);
    const nullable = { ...pgSchema, settings: settingsWithOptionalExtra };
    expect(schemaDifferences(sqliteSchema, nullable)).toEqual(['settings: PostgreSQL only: column note: string, null, no default']);
  });

  it('differ on a renamed index, a changed on-delete action, and a table missing from one side', () => {
    const clusterWorkloadsAltered = pgTable(
      'cluster_workloads',
      {
        clusterId: integer('cluster_id')
          .notNull()
          .references(() => pgSchema.clusters.id, { onDelete: 'set null' }),
        workload: text('workload').notNull(),
      },
      (t) => [primaryKey({ columns: [t.clusterId, t.workload] }), index('cluster_workloads_by_workload').on(t.workload)],
    );
    const { settings: _settings, ...withoutSettings } = pgSchema;
    expect(schemaDifferences(sqliteSchema, { ...withoutSettings, clusterWorkloads: clusterWorkloadsAltered }).sort()).toEqual(
      [
        'cluster_workloads: SQLite only: index cluster_workloads_workload (workload)',
        'cluster_workloads: PostgreSQL only: index cluster_workloads_by_workload (workload)',
        'cluster_workloads: SQLite only: foreign key cluster_workloads_cluster_id_clusters_id_fk (cluster_id) references clusters (id) on delete cascade on update no action',
        'cluster_workloads: PostgreSQL only: foreign key cluster_workloads_cluster_id_clusters_id_fk (cluster_id) references clusters (id) on delete set null on update no action',
        'settings: only in the SQLite schema',
      ].sort(),
    );
  });
});

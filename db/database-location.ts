// Where the database is: DATABASE_URL read once. `postgres://…` (or `postgresql://…`) selects
// PostgreSQL; anything else is a SQLite location (a path, `file:PATH`, `sqlite:PATH`, `:memory:`).
// No driver is loaded here: the CLI's dispatcher and the settings parser import this module.
import path from 'node:path';
import { DatabaseOpenError } from './database-open-error';

export type DatabaseLocation = { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };

export const DEFAULT_DATABASE_FILE = path.join('data', 'fleetplan.db');

/** `postgres://` or `postgresql://`: the URLs that select PostgreSQL */
export function isPostgresUrl(url: string | undefined): boolean {
  return /^postgres(ql)?:\/\//i.test(url ?? '');
}

/** the URL with its password (if any) replaced, for messages and logs */
export function redactPostgresUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/:\/\/([^:@/]*):[^@/]*@/, '://$1:***@');
  }
}

/** `DATABASE_URL` may be a path, `file:PATH`, `sqlite:PATH` or `:memory:`. */
export function resolveDatabaseFile(url: string | undefined): string {
  if (!url) return DEFAULT_DATABASE_FILE;
  if (url === ':memory:') return url;
  const stripped = url.replace(/^(file|sqlite):(\/\/)?/, '');
  if (/^[a-z]+:\/\//i.test(url) && stripped === url) {
    throw new DatabaseOpenError(`DATABASE_URL '${url}' is not a SQLite location (expected a path or file:PATH)`);
  }
  return stripped;
}

/** DATABASE_URL as a location; throws DatabaseOpenError naming what is wrong with it */
export function parseDatabaseUrl(url: string | undefined): DatabaseLocation {
  if (isPostgresUrl(url)) {
    if (!URL.canParse(url!)) throw new DatabaseOpenError(`DATABASE_URL '${redactPostgresUrl(url!)}' is not a valid PostgreSQL URL`);
    return { kind: 'postgres', url: url! };
  }
  return { kind: 'sqlite', file: resolveDatabaseFile(url) };
}

/** the location for messages: the file's path, or the URL without its password */
export function describeDatabase(location: DatabaseLocation): string {
  return location.kind === 'sqlite' ? location.file : redactPostgresUrl(location.url);
}

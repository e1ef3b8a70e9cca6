// The server's secret key (encrypts webhook secrets at rest): FLEETPLAN_SECRET_KEY, or else a key
// file beside the database (`<database>.key`, mode 0600) created on first use. Backups of the
// database need this key too: without it the webhook secrets in them cannot be read.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '@/db/open-database';
import { isPostgresHandle } from '@/db/postgres-handle';
import type { FleetplanEnv } from '@/server/env';
import { parseSecretKey, secretKeyFromBytes, type SecretKey } from './secret-box';

export function secretKeyFileFor(databaseFile: string): string {
  return `${path.resolve(databaseFile)}.key`;
}

const cache = globalThis as unknown as { __fleetplanSecretKeys?: Map<string, SecretKey> };

function readOrCreateKeyFile(file: string, log: (message: string) => void): SecretKey {
  try {
    return readKeyFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const key = secretKeyFromBytes(randomBytes(32));
  try {
    // 'wx': if another process created it meanwhile, use theirs
    fs.writeFileSync(file, `${key.bytes.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return readKeyFile(file);
    throw err;
  }
  log(
    `fleetplan: created the secret key ${file} (mode 0600, key ${key.id}); it encrypts webhook secrets, so back it up ` +
      `with the database, or set FLEETPLAN_SECRET_KEY instead`,
  );
  return key;
}

function readKeyFile(file: string): SecretKey {
  const text = fs.readFileSync(file, 'utf8');
  if ((fs.statSync(file).mode & 0o077) !== 0) {
    console.warn(`fleetplan: the secret key file ${file} is readable by other users; run chmod 600 on it`);
  }
  return parseSecretKey(text, `the secret key file ${file}`);
}

/**
 * The key for a database file: `configured` (FLEETPLAN_SECRET_KEY, parsed by server/env.ts) when
 * set, else the key file beside the database. An in-memory database (tests) gets a key that lives
 * as long as the process.
 */
export function loadSecretKey(
  databaseFile: string,
  configured: SecretKey | undefined,
  log: (message: string) => void = console.log,
): SecretKey {
  const inMemory = databaseFile === ':memory:' || databaseFile === '';
  const cacheKey = configured ? `env:${configured.id}` : inMemory ? 'memory' : `file:${path.resolve(databaseFile)}`;
  cache.__fleetplanSecretKeys ??= new Map();
  const known = cache.__fleetplanSecretKeys.get(cacheKey);
  if (known) return known;
  const key = configured ?? (inMemory ? secretKeyFromBytes(randomBytes(32)) : readOrCreateKeyFile(secretKeyFileFor(databaseFile), log));
  cache.__fleetplanSecretKeys.set(cacheKey, key);
  return key;
}

/**
 * SQLite keeps its key in a file beside the database. PostgreSQL replicas share no file, and a key
 * kept in the database it protects would protect nothing: there FLEETPLAN_SECRET_KEY is required.
 */
export function missingSecretKeyProblem(env: Pick<FleetplanEnv, 'secretKey'>, onPostgres: boolean): string | null {
  if (env.secretKey || !onPostgres) return null;
  return (
    'FLEETPLAN_SECRET_KEY is required with PostgreSQL: every replica must seal and open webhook secrets with the same key ' +
    '(32 bytes, hex or base64, e.g. `openssl rand -hex 32`)'
  );
}

export function secretKeyForDb(db: Db, env: Pick<FleetplanEnv, 'secretKey'>): SecretKey {
  const problem = missingSecretKeyProblem(env, isPostgresHandle(db));
  if (problem) throw new Error(problem);
  // configured, or SQLite's key file beside its database (on PostgreSQL a key is always configured: above)
  return env.secretKey ?? loadSecretKey(db.$client.name, undefined);
}

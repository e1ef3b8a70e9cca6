// Where PostgreSQL's own programs are (pg_dump, pg_restore; initdb and pg_ctl for the tests'
// throw-away servers): $POSTGRES_BIN, `pg_config --bindir`, the newest Debian
// /usr/lib/postgresql/N/bin, or PATH.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** the first directory holding every one of `programs`, or null */
export function findPostgresTools(programs: string[]): string | null {
  const candidates: string[] = [];
  if (process.env.POSTGRES_BIN) candidates.push(process.env.POSTGRES_BIN);
  const pgConfig = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  if (pgConfig.status === 0) candidates.push(pgConfig.stdout.trim());
  const debianRoot = '/usr/lib/postgresql';
  if (fs.existsSync(debianRoot)) {
    const versions = fs
      .readdirSync(debianRoot)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => path.join(debianRoot, v, 'bin')));
  }
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) if (dir) candidates.push(dir);
  return candidates.find((dir) => programs.every((p) => fs.existsSync(path.join(dir, p)))) ?? null;
}

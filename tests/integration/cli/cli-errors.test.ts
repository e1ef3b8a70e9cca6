// Every `fleetplan` error is one clear line on stderr with exit 2 (usage) or 1 (failure), never a
// stack trace unless FLEETPLAN_DEBUG=1. Runs the real CLI in child processes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/open-database';
import { runCli } from '../fixtures/spawn-process';

let dir: string;
let junkDb: string;
let dirDb: string;
let goodDb: string;
let badYaml: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-cli-errors-'));
  junkDb = path.join(dir, 'junk.db');
  fs.writeFileSync(junkDb, 'this is not a database\n'.repeat(40));
  dirDb = path.join(dir, 'a-directory');
  fs.mkdirSync(dirDb);
  goodDb = path.join(dir, 'good.db');
  openDatabase(goodDb).$client.close();
  badYaml = path.join(dir, 'bad.yaml');
  fs.writeFileSync(badYaml, 'a: [b\n');
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const STACK_LINE = /^\s+at /m;

/** lines: the error line, plus the usage line for usage errors */
type Case = { name: string; args: () => string[]; db: () => string; exit: number; lines: number; message: RegExp };

const CASES: Case[] = [
  {
    name: 'export on a file that is not a database',
    args: () => ['export'],
    db: () => junkDb,
    exit: 1,
    lines: 1,
    message: /^fleetplan export: cannot open the database .*junk\.db: file is not a database/,
  },
  {
    name: 'graph list on a directory as the database',
    args: () => ['graph', 'list'],
    db: () => dirDb,
    exit: 1,
    lines: 1,
    message: /^fleetplan graph: cannot open the database .*a-directory: it is a directory/,
  },
  {
    name: 'import into a file that is not a database',
    args: () => ['import', badYaml],
    db: () => junkDb,
    exit: 1,
    lines: 1,
    message: /^fleetplan import: cannot open the database .*file is not a database/,
  },
  {
    name: 'backup of a file that is not a database',
    args: () => ['backup', path.join(dir, 'copy.db')],
    db: () => junkDb,
    exit: 1,
    lines: 1,
    message: /^fleetplan backup: .*junk\.db is not a SQLite database/,
  },
  {
    name: 'backup onto a directory',
    args: () => ['backup', dirDb, '--force'],
    db: () => goodDb,
    exit: 1,
    lines: 1,
    message: /^fleetplan backup: .*a-directory is a directory/,
  },
  {
    name: 'backup with an unknown flag',
    args: () => ['backup', '--bogus', 'x.db'],
    db: () => goodDb,
    exit: 2,
    lines: 2,
    message: /^fleetplan backup: unknown option --bogus\nusage: fleetplan backup/,
  },
  {
    name: 'restore with an unknown flag',
    args: () => ['restore', 'x.db', '--force'],
    db: () => goodDb,
    exit: 2,
    lines: 2,
    message: /^fleetplan restore: unknown option --force\nusage: fleetplan restore/,
  },
  {
    name: 'restore of a missing file',
    args: () => ['restore', path.join(dir, 'missing.db')],
    db: () => goodDb,
    exit: 1,
    lines: 1,
    message: /^fleetplan restore: .*missing\.db does not exist\n$/,
  },
  {
    name: 'restore of a directory',
    args: () => ['restore', dirDb],
    db: () => goodDb,
    exit: 1,
    lines: 1,
    message: /^fleetplan restore: .*a-directory is a directory/,
  },
  {
    name: 'restore of a file that is not SQLite',
    args: () => ['restore', badYaml],
    db: () => goodDb,
    exit: 1,
    lines: 1,
    message: /^fleetplan restore: .*bad\.yaml is not a SQLite database/,
  },
  {
    name: 'a DATABASE_URL that is neither SQLite nor PostgreSQL',
    args: () => ['graph', 'list'],
    db: () => 'mysql://db.example/fleet',
    exit: 1,
    lines: 1,
    message: /^fleetplan graph: DATABASE_URL 'mysql:\/\/db\.example\/fleet' is not a SQLite location/,
  },
  {
    name: 'a PostgreSQL server that does not answer',
    args: () => ['graph', 'list'],
    // port 1 on this machine: nothing listens, the connection is refused at once
    db: () => 'postgres://fp:secret@127.0.0.1:1/fleet',
    exit: 1,
    lines: 1,
    message:
      /^fleetplan graph: cannot migrate the database postgres:\/\/fp:\*\*\*@127\.0\.0\.1:1\/fleet: connect ECONNREFUSED 127\.0\.0\.1:1\n$/,
  },
  {
    name: 'plan with invalid YAML (contract: exit 2)',
    args: () => ['plan', badYaml],
    db: () => goodDb,
    exit: 2,
    lines: 1,
    message: /^line 2: invalid YAML/,
  },
];

describe('fleetplan errors', () => {
  // concurrent: each case is a separate process that mostly waits for tsx to start
  it.concurrent.for(CASES)('$name: exit $exit, one clear line, no stack trace', async ({ args, db, exit, lines, message }, { expect }) => {
    const out = await runCli(args(), { DATABASE_URL: db() });
    expect(out.stderr).toMatch(message);
    expect(out.code).toBe(exit);
    expect(out.stderr).not.toMatch(STACK_LINE);
    expect(out.stdout).toBe('');
    expect(out.stderr.trimEnd().split('\n')).toHaveLength(lines);
  });

  it('prints the stack trace with FLEETPLAN_DEBUG=1', async () => {
    const out = await runCli(['export'], { DATABASE_URL: junkDb, FLEETPLAN_DEBUG: '1' });
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/^fleetplan export: cannot open the database/);
    expect(out.stderr).toMatch(STACK_LINE);
  });
});

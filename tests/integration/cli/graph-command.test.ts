// `fleetplan graph import|list` as a user runs it: a child process on a database file.
import { spawn, spawnSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/open-database';

let dir: string;
let dbFile: string;

function fleetplan(...args: string[]) {
  const r = spawnSync(process.execPath, ['bin/fleetplan.mjs', ...args], {
    cwd: process.cwd(),
    env: { ...process.env, DATABASE_URL: dbFile, FLEETPLAN_ACTOR: 'cli:test' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function storedGraphs(): { name: string; channel: string | null; architecture: string; node_count: number; captured_at: number | null }[] {
  const db = openDatabase(dbFile);
  const rows = db.$client.prepare('select name, channel, architecture, node_count, captured_at from update_graphs order by name').all();
  db.$client.close();
  return rows as never;
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-graph-cli-'));
  dbFile = path.join(dir, 'graphs.db');
  fs.writeFileSync(path.join(dir, 'bad.json'), '{"version":1,"nodes":[{"version":"4.7.1"},{"version":"4.7"}],"edges":[]}');
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('fleetplan graph', () => {
  it('imports a graph file (exit 0), lists it, and refuses a bad file (exit 2) without writing', () => {
    const ok = fleetplan(
      'graph',
      'import',
      'server/demo/data/union-4.6-4.9.json',
      '--name',
      'union',
      '--channel',
      'stable-4.9',
      '--arch',
      'amd64',
      '--captured-at',
      '2022-12-15T00:00:00Z',
    );
    expect(ok.err).toBe('');
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/imported graph union \(id \d+\): 197 releases, 6768 edges/);
    expect(storedGraphs()).toEqual([
      { name: 'union', channel: 'stable-4.9', architecture: 'amd64', node_count: 197, captured_at: expect.any(Number) as unknown },
    ]);

    const bad = fleetplan('graph', 'import', path.join(dir, 'bad.json'));
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('bad.json is not a valid update graph: nodes[1]: version "4.7" is not SemVer');
    const missing = fleetplan('graph', 'import', path.join(dir, 'no-such.json'));
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/no-such\.json: cannot read the file \(ENOENT\)/);
    expect(fleetplan('graph', 'import', 'x.json', '--captured-at', 'yesterday').code).toBe(2);
    expect(storedGraphs()).toHaveLength(1);

    const list = fleetplan('graph', 'list');
    expect(list.code).toBe(0);
    expect(list.out).toMatch(/union\s+stable-4\.9\s+amd64\s+2022-12-15\s+197\s+6768/);
    const json = fleetplan('graph', 'list', '--json');
    expect(JSON.parse(json.out)).toHaveLength(1);
  }, 120_000);

  it('fetches channels from an update service (graph fetch), and exits 1 naming a channel it could not store', async () => {
    const graph = fs.readFileSync(path.join(__dirname, '../../contracts/graphs/stable-4.7.json'), 'utf8');
    const server = http.createServer((req, res) => {
      const channel = new URL(req.url ?? '/', 'http://x').searchParams.get('channel');
      if (channel === 'stable-4.7') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end(graph);
      }
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'invalid_params', value: `unknown channel ${channel}` }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/upgrades_info/v1/graph`;
      // spawned (not spawnSync): this process must keep serving the update service meanwhile
      const run = (...args: string[]) =>
        new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
          const child = spawn(process.execPath, ['bin/fleetplan.mjs', ...args], {
            cwd: process.cwd(),
            env: { ...process.env, DATABASE_URL: dbFile, FLEETPLAN_ACTOR: 'cli:test' },
          });
          let out = '';
          let err = '';
          child.stdout.on('data', (c: Buffer) => (out += c.toString()));
          child.stderr.on('data', (c: Buffer) => (err += c.toString()));
          child.on('close', (code) => resolve({ code, out, err }));
        });
      const ok = await run('graph', 'fetch', '--url', url, '--channel', 'stable-4.7');
      expect(ok.err).toBe('');
      expect(ok.out).toMatch(/^stable-4\.7: stored stable-4\.7-amd64 \(\d+ releases\)\n$/);
      expect(storedGraphs().find((g) => g.name === 'stable-4.7-amd64')).toMatchObject({ channel: 'stable-4.7', architecture: 'amd64' });

      const partly = await run('graph', 'fetch', '--url', url, '--channel', 'stable-4.7,eus-4.99');
      expect(partly.code).toBe(1);
      expect(partly.err).toContain('eus-4.99: ');
      expect(partly.err).toContain('answered HTTP 400 for channel eus-4.99: unknown channel eus-4.99; nothing stored');

      const missing = await run('graph', 'fetch', '--channel', 'stable-4.7');
      expect(missing.code).toBe(2);
      expect(missing.err).toContain('FLEETPLAN_UPDATE_SERVICE_URL is required with FLEETPLAN_UPDATE_SERVICE_CHANNELS');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    // three CLI processes, one after the other: 6 s with one other test process running, more on a loaded CI
  }, 120_000);
});

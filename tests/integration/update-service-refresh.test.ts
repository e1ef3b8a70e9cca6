// Update graphs from a Cincinnati-compatible endpoint (FLEETPLAN_UPDATE_SERVICE_*): a local HTTP
// server answers like the OpenShift Update Service (GET ?channel=&arch=, application/json, a real
// channel graph from tests/contracts/graphs; errors as Cincinnati's {kind, value}).
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { asc } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import { tablesOf } from '@/server/repositories/dialect';
import { startGraphRefreshLoop } from '@/server/scheduler/graph-refresh-loop';
import { createGraphRefreshService } from '@/server/services/graph-refresh-service';
import { createGraphService } from '@/server/services/graph-service';
import { onBothDatabases } from '@/tests/support/both-databases';

const GRAPH = fs.readFileSync(path.join(__dirname, '../contracts/graphs/stable-4.13.json'), 'utf8');
const NOW = new Date('2026-11-25T06:00:00Z');
const requests: { channel: string | null; arch: string | null; accept: string | undefined }[] = [];
let server: http.Server;
let url: string;
let db: Db;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams;
    requests.push({ channel: q.get('channel'), arch: q.get('arch'), accept: req.headers.accept });
    if (q.get('channel') === 'stable-4.13') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(GRAPH);
    }
    if (q.get('channel') === 'huge-4.13') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      let sent = 0;
      const more = () => {
        while (sent < 22) {
          sent++;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end('{}');
      };
      return void more();
    }
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ kind: 'invalid_params', value: `unknown channel ${q.get('channel')}` }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/upgrades_info/v1/graph`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const service = (channels: string[]) =>
  createGraphRefreshService({ db, realNow: () => NOW, settings: { url, channels, arch: 'amd64', refreshHours: 6 } });
const storedGraphs = () => db.select().from(tablesOf(db).updateGraphs);

onBothDatabases('graphs from an update service', (open) => {
  beforeEach(async () => {
    db = await open();
    requests.length = 0;
  });

  it('fetches each channel as JSON and stores it as <channel>-<arch>, captured now, replacing the previous copy', async () => {
    const results = await service(['stable-4.13']).refresh('system:update-service');
    expect(results).toEqual([{ channel: 'stable-4.13', ok: true, detail: 'stable-4.13-amd64', nodes: expect.any(Number) as number }]);
    expect(requests).toEqual([{ channel: 'stable-4.13', arch: 'amd64', accept: 'application/json' }]);
    const [stored] = await createGraphService(db, () => NOW).list();
    expect(stored).toMatchObject({
      name: 'stable-4.13-amd64',
      channel: 'stable-4.13',
      architecture: 'amd64',
      capturedAt: NOW,
      source: `update service ${url}`,
    });
    expect(stored!.nodeCount).toBeGreaterThan(50);
    // the Paths page can answer from it at once
    expect((await createGraphService(db, () => NOW).channels()).channels.length).toBeGreaterThan(0);

    await service(['stable-4.13']).refresh('system:update-service');
    expect(await storedGraphs()).toHaveLength(1);
    const { auditLog } = tablesOf(db);
    expect((await db.select().from(auditLog).orderBy(asc(auditLog.id))).map((a) => [a.action, a.actor])).toEqual([
      ['graph.import', 'system:update-service'],
      ['graph.import', 'system:update-service'],
    ]);
  });

  it('goes on past a channel the service refuses (its own message) or one too large, storing nothing for them', async () => {
    const results = await service(['eus-4.99', 'huge-4.13', 'stable-4.13']).refresh('alice');
    expect(results.map((r) => [r.channel, r.ok])).toEqual([
      ['eus-4.99', false],
      ['huge-4.13', false],
      ['stable-4.13', true],
    ]);
    expect(results[0]!.detail).toBe(
      `${url.replace('/api/upgrades_info/v1/graph', '')}/api/upgrades_info/v1/graph answered HTTP 400 for channel eus-4.99: unknown channel eus-4.99`,
    );
    expect(results[1]!.detail).toBe('the graph is larger than 20 MB');
    expect((await createGraphService(db, () => NOW).list()).map((g) => g.name)).toEqual(['stable-4.13-amd64']);
  });

  it('says so when the service cannot be reached', async () => {
    // a port that was just free: nothing listens there
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const unreachable = createGraphRefreshService({
      db,
      realNow: () => NOW,
      settings: { url: `http://127.0.0.1:${port}/graph`, channels: ['stable-4.13'], arch: 'amd64', refreshHours: 6 },
    });
    const [result] = await unreachable.refresh('alice');
    expect(result).toMatchObject({ channel: 'stable-4.13', ok: false });
    expect(result!.detail).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/graph: .*ECONNREFUSED`));
    expect(await storedGraphs()).toHaveLength(0);
  });
});

describe('the update graph refresh loop', () => {
  it('refreshes after the first delay and then every interval, and logs what it did', async () => {
    vi.useFakeTimers();
    try {
      const lines: string[] = [];
      let calls = 0;
      const loop = startGraphRefreshLoop({
        intervalMs: 6 * 3_600_000,
        firstDelayMs: 60_000,
        refresh: () => Promise.resolve(`call ${++calls}`),
        log: (l) => lines.push(l),
      });
      await vi.advanceTimersByTimeAsync(59_999);
      expect(calls).toBe(0);
      await vi.advanceTimersByTimeAsync(1);
      await vi.advanceTimersByTimeAsync(6 * 3_600_000);
      expect(lines).toEqual(['fleetplan: update graphs: call 1', 'fleetplan: update graphs: call 2']);
      loop.stop();
      await vi.advanceTimersByTimeAsync(24 * 3_600_000);
      expect(calls).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });
});

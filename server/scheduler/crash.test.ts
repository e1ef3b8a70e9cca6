// Kills a process running scheduler ticks with SIGKILL at random points, over and over, and
// checks that nothing was triggered twice, no mutex was ever held by two clusters at once, no
// decision lost its tick and every intent ends done or reconciled. A fast complement (many kills
// in seconds, mutex overlap checks) of e2e/crash-restart.spec.ts, which SIGKILLs the real `npm
// start` server against the fake OCM as its own process: there the provider's state does not
// commit with fleetplan's, so a crash between them is really exercised.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/open-database';
import * as t from '@/db/schema';
import type { FakeRecord } from '@/server/integrations/providers/fake-provider';
import {
  CRASH_DURATION_MS,
  CRASH_EUS_GATE,
  CRASH_EUS_ROUTE,
  CRASH_EXCLUDED_OPERATOR,
  CRASH_FLEET,
  CRASH_ROUTE,
  CRASH_ROUTE_CHANNELS,
} from './crash-fleet';

const CHILD = path.join(process.cwd(), 'server', 'scheduler', 'crash-child.ts');
const KILLS = Number(process.env.CRASH_KILLS ?? 20);

function runChild(
  dbFile: string,
  logFile: string,
  opts: { killAfterMs?: number; ticks?: number },
): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    // node itself with tsx as a loader, not the tsx CLI: the CLI runs the script in a grandchild
    // that SIGKILL would not reach, so the kill would miss the ticking process and orphan it.
    const args = ['--import', 'tsx', CHILD, dbFile, logFile, ...(opts.ticks ? ['--ticks', String(opts.ticks)] : [])];
    const child = spawn(process.execPath, args, { cwd: process.cwd(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      if (opts.killAfterMs !== undefined && d.toString().includes('ready')) setTimeout(() => child.kill('SIGKILL'), opts.killAfterMs);
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code, signal, stderr }));
  });
}

describe('scheduler crash safety', () => {
  it(`keeps its invariants across ${KILLS} SIGKILLs mid-tick`, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-crash-'));
    const dbFile = path.join(dir, 'fleet.db');
    const logFile = path.join(dir, 'provider.log');
    let seed = 12345;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    let killed = 0;
    for (let i = 0; i < KILLS; i++) {
      const r = await runChild(dbFile, logFile, { killAfterMs: Math.floor(rand() * 400) });
      if (r.signal === 'SIGKILL') killed++;
      else throw new Error(`child ended on its own (code ${r.code}): ${r.stderr}`);
    }
    expect(killed).toBe(KILLS);
    // enough clean ticks for the routed clusters to take their hops
    const clean = await runChild(dbFile, logFile, { ticks: 16 });
    expect(clean.code).toBe(0);

    const records = fs
      .readFileSync(logFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as FakeRecord);
    const triggers = records.filter((r): r is Extract<FakeRecord, { op: 'trigger' }> => r.op === 'trigger');
    expect(triggers.length).toBeGreaterThan(10);

    // 1. no (cluster, version) triggered twice
    const seen = new Set<string>();
    for (const tr of triggers) {
      const key = `${tr.cluster}@${tr.version}`;
      expect(seen.has(key), `${key} triggered twice`).toBe(false);
      seen.add(key);
    }

    // 2. no mutex held by two clusters with live upgrades at once
    const cancels = records.filter((r) => r.op === 'cancel');
    const live = triggers.map((tr) => {
      const cancel = cancels.find((c) => c.cluster === tr.cluster && c.version === tr.version && Date.parse(c.at) < Date.parse(tr.nextRun));
      return {
        cluster: tr.cluster,
        from: Date.parse(tr.at),
        to: cancel ? Date.parse(cancel.at) : Date.parse(tr.nextRun) + CRASH_DURATION_MS,
      };
    });
    const mutexesOf = new Map(CRASH_FLEET.clusters.map((c) => [c.name, c.mutexes ?? []]));
    for (let a = 0; a < live.length; a++) {
      for (let b = a + 1; b < live.length; b++) {
        const x = live[a]!;
        const y = live[b]!;
        if (x.cluster === y.cluster) {
          expect(x.from < y.to && y.from < x.to, `${x.cluster} had two live upgrades`).toBe(false);
          continue;
        }
        const shared = (mutexesOf.get(x.cluster) ?? []).filter((m) => (mutexesOf.get(y.cluster) ?? []).includes(m));
        if (shared.length) expect(x.from < y.to && y.from < x.to, `mutex ${shared[0]} held by ${x.cluster} and ${y.cluster}`).toBe(false);
      }
    }

    // 5. the routed clusters take the route's hops in order, none skipped, none twice, never the
    // dead end; each channel switch once, before the hop that needs it
    const hops = CRASH_ROUTE.slice(1);
    let switches = 0;
    for (const name of ['r-00', 'r-01']) {
      const mine = records.filter((r) => r.cluster === name);
      const taken = mine.filter((r): r is Extract<FakeRecord, { op: 'trigger' }> => r.op === 'trigger').map((r) => r.version);
      expect(taken, `${name} left the route`).toEqual(hops.slice(0, taken.length));
      const channels = mine.filter((r): r is Extract<FakeRecord, { op: 'channel' }> => r.op === 'channel');
      expect(new Set(channels.map((c) => c.channel)).size, `${name} switched a channel twice`).toBe(channels.length);
      for (const hop of taken) {
        const wanted = CRASH_ROUTE_CHANNELS[hop];
        if (!wanted) continue;
        const switchAt = mine.findIndex((r) => r.op === 'channel' && r.channel === wanted);
        const triggerAt = mine.findIndex((r) => r.op === 'trigger' && r.version === hop);
        expect(
          switchAt >= 0 && switchAt < triggerAt,
          `${name}: ${hop} started before the switch to ${wanted}: ${JSON.stringify(mine)}`,
        ).toBe(true);
      }
      switches += channels.length;
    }
    expect(switches).toBeGreaterThan(0);

    // 6. the EUS clusters: one control-plane-only run each — the worker pool paused once before hop
    // 1, the admin gate acknowledged once between the hops, unpaused once after hop 2; no write twice
    for (const name of ['e-00', 'e-01']) {
      const mine = records
        .filter((r) => r.cluster === name)
        .map((r) =>
          r.op === 'pool'
            ? `${r.paused ? 'pause' : 'unpause'}:${r.pool}`
            : r.op === 'ack'
              ? `ack:${r.gate}`
              : r.op === 'channel'
                ? `channel:${r.channel}`
                : r.op === 'trigger'
                  ? `start:${r.version}`
                  : r.op,
        );
      expect(mine, `${name}: ${JSON.stringify(mine)}`).toEqual([
        'pause:worker',
        'channel:eus-4.14',
        `start:${CRASH_EUS_ROUTE[1]}`,
        `ack:${CRASH_EUS_GATE}`,
        `start:${CRASH_EUS_ROUTE[2]}`,
        'unpause:worker',
      ]);
    }

    // 3. every decision references an existing tick; 4. no intent left pending
    const db = openDatabase(dbFile);
    const tickIds = new Set(
      db
        .select({ id: t.schedulerTicks.id })
        .from(t.schedulerTicks)
        .all()
        .map((r) => r.id),
    );
    const decisions = db.select().from(t.decisions).all();
    expect(decisions.length).toBeGreaterThan(0);
    for (const d of decisions) expect(d.tickId !== null && tickIds.has(d.tickId), `decision ${d.id} has no tick`).toBe(true);
    const intents = db.select().from(t.actionIntents).all();
    expect(intents.filter((i) => i.status === 'pending')).toEqual([]);
    // every trigger the provider saw belongs to a done intent with the same key
    const doneKeys = new Set(intents.filter((i) => i.status === 'done').map((i) => i.idempotencyKey));
    for (const tr of triggers) expect(doneKeys.has(tr.key), `trigger ${tr.key} not marked done`).toBe(true);

    // 5. InstallPlans: each approved once at most, never the excluded operator's, each by a done intent with its key
    const approvals = records.filter((r): r is Extract<FakeRecord, { op: 'approve' }> => r.op === 'approve');
    expect(approvals.length).toBeGreaterThan(0);
    const approved = new Set<string>();
    for (const a of approvals) {
      const plan = `${a.cluster}:${a.namespace}/${a.name}`;
      expect(approved.has(plan), `${plan} approved twice`).toBe(false);
      approved.add(plan);
      expect(a.name).not.toContain(CRASH_EXCLUDED_OPERATOR);
      expect(CRASH_FLEET.clusters.find((c) => c.name === a.cluster)?.lifecycle, `${a.cluster} has no operatorApprovals`).toBeDefined();
      expect(doneKeys.has(a.key), `approval ${a.key} not marked done`).toBe(true);
    }
    const interrupted = db
      .select()
      .from(t.schedulerTicks)
      .all()
      .filter((r) => r.error?.startsWith('interrupted'));
    expect(interrupted.length).toBeGreaterThan(0);
    db.$client.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }, 300_000);
});

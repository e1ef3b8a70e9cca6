// `fleetplan approve` and `fleetplan approvals list|revoke` on a database file: a gate approved
// once (audited with the CLI's actor and the reason), idempotent, listed, revoked; refusals exit 2
// and write nothing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/open-database';
import { runApprovalsCommand, runApproveCommand } from '@/server/cli/approve-command';
import { seedDemo } from '@/server/services/demo-seed-service';
import { captureIo } from './capture-io';
import { queryFile } from './query-file';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetplan-approve-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const file = path.join(dir, 'fleet.db');

const query = <T>(sql: string): T[] => queryFile<T>(file, sql);

beforeAll(async () => {
  const db = openDatabase(file);
  await seedDemo(db, new Date('2026-11-22T12:00:00Z'));
  db.$client.prepare("update sectors set approval_before = 1 where name = 'prod-blue'").run();
  db.$client.close();
});

describe('fleetplan approve / approvals', () => {
  it('approves a gate once, lists it, and revokes it; each change audited with the actor and reason', async () => {
    const io = () => {
      const c = captureIo(file);
      c.env.FLEETPLAN_ACTOR = 'ci:pipeline-77';
      return c;
    };
    const first = io();
    expect(await runApproveCommand(['--sector', 'prod-blue', '--version', '4.13.99', '--reason', 'CAB 1234'], first)).toBe(0);
    expect(first.out).toBe('approved 4.13.99 into sector prod-blue (ci:pipeline-77)\n');
    const again = io();
    expect(await runApproveCommand(['--sector=prod-blue', '--version=4.13.99'], again)).toBe(0);
    expect(again.out).toContain('was approved already');
    const listed = io();
    expect(await runApprovalsCommand(['list'], listed)).toBe(0);
    expect(listed.out).toMatch(/^prod-blue\t4\.13\.99\tbefore\tci:pipeline-77\t\S+\tCAB 1234\n$/);
    const revoked = io();
    expect(await runApprovalsCommand(['revoke', '--sector', 'prod-blue', '--version', '4.13.99', '--reason', 'rollback'], revoked)).toBe(0);
    expect(revoked.out).toBe('revoked the approval of 4.13.99 into sector prod-blue\n');
    const none = io();
    expect(await runApprovalsCommand(['list'], none)).toBe(0);
    expect(none.out).toBe('no approvals\n');
    const all = io();
    expect(await runApprovalsCommand(['list', '--all'], all)).toBe(0);
    expect(all.out).toContain('revoked');
    expect(
      query<{ action: string; actor: string }>("select action, actor from audit_log where action like 'approval.%' order by id"),
    ).toEqual([
      { action: 'approval.approve', actor: 'ci:pipeline-77' },
      { action: 'approval.revoke', actor: 'ci:pipeline-77' },
    ]);
  });

  it('refuses bad input with exit 2 and writes nothing', async () => {
    const before = query<{ n: number }>('select count(*) n from approvals')[0]!.n;
    const cases: [string[], string][] = [
      [['--sector', 'prod-blue'], 'name the gate'],
      [['--sector', 'prod-blue', '--version', '4.13.99', '--kind', 'during'], '--kind must be before or after'],
      [['--sector', 'prod-blue', '--version', '4.13.99', '--force'], "unknown option '--force'"],
      [['--sector', 'nowhere', '--version', '4.13.99'], "sector: sector 'nowhere' does not exist"],
      [['--sector', 'dev', '--version', '4.13.99'], "kind: sector 'dev' has no approval.before gate"],
    ];
    for (const [args, message] of cases) {
      const io = captureIo(file);
      expect(await runApproveCommand(args, io), args.join(' ')).toBe(2);
      expect(io.err).toContain(message);
    }
    expect(await runApprovalsCommand(['frobnicate'], captureIo(file))).toBe(2);
    expect(query<{ n: number }>('select count(*) n from approvals')[0]!.n).toBe(before);
  });
});

// The repositories written for both databases, run on each: SQLite (the embedded default) and a
// throw-away PostgreSQL. Same calls, same answers; transactions with the same guarantees.
import { expect, it } from 'vitest';
import type { Db } from '@/db/open-database';
import {
  acquireLease,
  getLease,
  hasSetting,
  leaseValidUntil,
  readSetting,
  releaseLease,
  renewLease,
  writeSetting,
} from '@/server/repositories/scheduler-repository';
import { deleteExpiredSessions, deleteSession, findLiveSession, insertSession } from '@/server/repositories/session-repository';
import { appendAudit, countAudit, listAudit } from '@/server/repositories/audit-repository';
import {
  findOrganizationByName,
  insertEmptyOrganization,
  listOrganizations,
  renameOrganization,
} from '@/server/repositories/organization-repository';
import { deleteThrottleRow, findThrottleRows, saveThrottleRow } from '@/server/repositories/sign-in-throttle-repository';
import { withTransaction } from '@/server/repositories/transaction';
import { insertUser } from '@/server/repositories/user-repository';
import { onBothDatabases } from '@/tests/support/both-databases';

const AT = new Date('2026-11-27T06:00:00.000Z');
const MIN = 60_000;

onBothDatabases('settings, the lease and sessions', (open) => {
  it('keeps a setting: written, read back as written, overwritten', async () => {
    const db = await open();
    expect(await readSetting(db, 'k')).toBeUndefined();
    expect(await hasSetting(db, 'k')).toBe(false);
    await writeSetting(db, 'k', { speed: 60, names: ['a', 'b'] }, AT);
    expect(await readSetting(db, 'k')).toEqual({ speed: 60, names: ['a', 'b'] });
    await writeSetting(db, 'k', 3, AT);
    expect(await readSetting(db, 'k')).toBe(3);
    expect(await hasSetting(db, 'k')).toBe(true);
  });

  it('gives the lease to one holder until it expires, renews only its own tenure, and releases it', async () => {
    const db = await open();
    const now = AT.getTime();
    const a1 = { name: 'scheduler', holder: 'a', fencingToken: 1 };
    expect(await acquireLease(db, 'scheduler', 'a', now, MIN)).toEqual({
      acquired: true,
      holder: 'a',
      expiresAt: now + MIN,
      fencingToken: 1,
    });
    expect(await acquireLease(db, 'scheduler', 'b', now + 1_000, MIN)).toEqual({
      acquired: false,
      holder: 'a',
      expiresAt: now + MIN,
      fencingToken: 1,
    });
    expect(await leaseValidUntil(db, a1, now + 1_000)).toBe(now + MIN);
    expect(await renewLease(db, { ...a1, holder: 'b' }, now + 1_000, MIN)).toBe(false);
    expect(await renewLease(db, a1, now + 30_000, MIN)).toBe(true);
    // taking it again while it is valid is a renewal: same tenure, same token
    expect(await acquireLease(db, 'scheduler', 'a', now + 30_000, MIN)).toMatchObject({ acquired: true, fencingToken: 1 });
    expect((await getLease(db, 'scheduler'))?.expiresAt.getTime()).toBe(now + 30_000 + MIN);
    // expired: another holder takes it over with a new token, and the old one can no longer renew
    expect(await acquireLease(db, 'scheduler', 'b', now + 30_000 + MIN, MIN)).toMatchObject({
      acquired: true,
      holder: 'b',
      fencingToken: 2,
    });
    expect(await renewLease(db, a1, now + 30_000 + MIN + 1, MIN)).toBe(false);
    expect(await leaseValidUntil(db, a1, now + 30_000 + MIN + 1)).toBeNull();
    expect(await releaseLease(db, 'scheduler', 'a')).toBe(false);
    expect(await releaseLease(db, 'scheduler', 'b')).toBe(true);
    expect(await leaseValidUntil(db, { ...a1, holder: 'b', fencingToken: 2 }, now + 30_000 + MIN + 2)).toBeNull();
    // released: the next holder (even the same one) starts a new tenure
    expect(await acquireLease(db, 'scheduler', 'b', now + 30_000 + MIN + 3, MIN)).toMatchObject({ acquired: true, fencingToken: 3 });
  });

  it('raises the fencing token when a holder takes its own lease again after it lapsed: what it began before must not act', async () => {
    const db = await open();
    const now = AT.getTime();
    await acquireLease(db, 'scheduler', 'a', now, MIN);
    expect(await acquireLease(db, 'scheduler', 'a', now + MIN, MIN)).toMatchObject({ acquired: true, fencingToken: 2 });
    expect(await leaseValidUntil(db, { name: 'scheduler', holder: 'a', fencingToken: 1 }, now + MIN + 1)).toBeNull();
    expect(await leaseValidUntil(db, { name: 'scheduler', holder: 'a', fencingToken: 2 }, now + MIN + 1)).toBe(now + 2 * MIN);
  });

  it('lets exactly one of several holders asking at once take a free lease', async () => {
    const db = await open();
    const asks = await Promise.all(['a', 'b', 'c', 'd'].map((h) => acquireLease(db, 'scheduler', h, AT.getTime(), MIN)));
    expect(asks.filter((a) => a.acquired)).toHaveLength(1);
    const winner = asks.find((a) => a.acquired)!.holder;
    expect(asks.filter((a) => !a.acquired).every((a) => a.holder === winner)).toBe(true);
  });

  it('finds a live session with its user, not an expired or deleted one', async () => {
    const db = await open();
    const user = await insertUser(db, { username: 'anna', passwordHash: 'x', role: 'viewer', organizationsOnly: false, createdAt: AT });
    await insertSession(db, {
      idHash: 'live',
      userId: user.id,
      csrfToken: 'c1',
      createdAt: AT,
      expiresAt: new Date(AT.getTime() + 60 * MIN),
    });
    await insertSession(db, { idHash: 'old', userId: user.id, csrfToken: 'c2', createdAt: AT, expiresAt: new Date(AT.getTime() + MIN) });
    const later = new Date(AT.getTime() + 2 * MIN);
    expect(await findLiveSession(db, 'live', later)).toMatchObject({ session: { idHash: 'live' }, user: { username: 'anna' } });
    expect(await findLiveSession(db, 'old', later)).toBeUndefined();
    await deleteExpiredSessions(db, later);
    await deleteSession(db, 'live');
    expect(await findLiveSession(db, 'live', AT)).toBeUndefined();
    expect(await findLiveSession(db, 'old', AT)).toBeUndefined();
  });

  it('rolls a unit of work back whole, and an inner one (a savepoint) alone', async () => {
    const db = await open();
    await expect(
      withTransaction(db, async (tx) => {
        await writeSetting(tx, 'a', 1, AT);
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(await hasSetting(db, 'a')).toBe(false);
    await withTransaction(db, async (tx) => {
      await writeSetting(tx, 'outer', 1, AT);
      await expect(
        withTransaction(tx, async (inner) => {
          await writeSetting(inner, 'inner', 2, AT);
          throw new Error('inner');
        }),
      ).rejects.toThrow('inner');
    });
    expect(await hasSetting(db, 'outer')).toBe(true);
    expect(await hasSetting(db, 'inner')).toBe(false);
  });

  it('puts the calls made with the outer handle inside a unit of work into it', async () => {
    const db = await open();
    await expect(
      withTransaction(db, async () => {
        await writeSetting(db, 'through-the-outer-handle', 1, AT);
        expect(await readSetting(db, 'through-the-outer-handle')).toBe(1);
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(await hasSetting(db, 'through-the-outer-handle')).toBe(false);
  });

  it('loses no update when units of work read then write the same value at once', async () => {
    const db: Db = await open();
    await writeSetting(db, 'n', 0, AT);
    const increment = () =>
      withTransaction(db, async (tx) => {
        const n = (await readSetting<number>(tx, 'n'))!;
        await new Promise((resolve) => setTimeout(resolve, 5)); // the others read meanwhile
        await writeSetting(tx, 'n', n + 1, AT);
      });
    await Promise.all([increment(), increment(), increment(), increment()]);
    expect(await readSetting(db, 'n')).toBe(4);
  });

  it('keeps organizations: created in order, found by name, renamed', async () => {
    const db = await open();
    const a = await insertEmptyOrganization(db, 'team-a', AT);
    const b = await insertEmptyOrganization(db, 'team-b', AT);
    expect(b.id).toBeGreaterThan(a.id);
    expect((await listOrganizations(db)).map((o) => o.name)).toEqual(['team-a', 'team-b']);
    await renameOrganization(db, a.id, 'payments', new Date(AT.getTime() + MIN));
    expect(await findOrganizationByName(db, 'team-a')).toBeUndefined();
    expect(await findOrganizationByName(db, 'payments')).toMatchObject({
      id: a.id,
      frozen: false,
      updatedAt: new Date(AT.getTime() + MIN),
    });
  });

  it('appends audit entries and counts and lists them newest first, by actor', async () => {
    const db = await open();
    for (const [i, actor] of ['alice', 'bob', 'alice'].entries())
      await appendAudit(db, {
        at: new Date(AT.getTime() + i * MIN),
        actor,
        action: 'policy.freeze',
        target: 'organization:demo',
        before: { frozen: false },
        after: { frozen: true, step: i },
        organizationId: null,
      });
    expect(await countAudit(db)).toBe(3);
    expect(await countAudit(db, { actor: 'alice' })).toBe(2);
    const listed = await listAudit(db, { filter: { actor: 'alice' } });
    expect(listed.total).toBe(2);
    expect(listed.rows.map((r) => r.after)).toEqual([
      { frozen: true, step: 2 },
      { frozen: true, step: 0 },
    ]);
  });

  it('keeps sign-in throttle rows by key: saved, updated, deleted', async () => {
    const db = await open();
    await saveThrottleRow(db, { key: 'user:anna', failures: 1, lastFailureAt: AT, blockedUntil: null });
    await saveThrottleRow(db, { key: 'user:anna', failures: 5, lastFailureAt: AT, blockedUntil: new Date(AT.getTime() + MIN) });
    await saveThrottleRow(db, { key: 'ip:10.0.0.1', failures: 2, lastFailureAt: AT, blockedUntil: null });
    const rows = await findThrottleRows(db, ['user:anna', 'ip:10.0.0.1', 'user:nobody']);
    expect(rows.sort((x, y) => x.key.localeCompare(y.key))).toEqual([
      { key: 'ip:10.0.0.1', failures: 2, lastFailureAt: AT, blockedUntil: null },
      { key: 'user:anna', failures: 5, lastFailureAt: AT, blockedUntil: new Date(AT.getTime() + MIN) },
    ]);
    await deleteThrottleRow(db, 'user:anna');
    expect(await findThrottleRows(db, ['user:anna'])).toEqual([]);
  });
});

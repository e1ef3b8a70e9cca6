// Two clocks: an operator may move the simulated fleet clock (scheduler.advanceClock), but audit
// rows, policy revisions, sessions and API tokens keep real time. Runs the real router with the
// clocks the HTTP route handler passes (fleet clock from the simulator's state, wall clock).
import { describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/open-database';
import { auditLog, policyRevisions, sessions } from '@/db/schema';
import { seedDemo } from '@/server/services/demo-seed-service';
import { createCaller } from '@/server/api/root';
import { createContextInner } from '@/server/api/trpc';
import type { Actor } from '@/server/auth/actor';
import { getFleetClock } from '@/server/fleet-clock';
import { insertUser } from '@/server/repositories/user-repository';

const DAY_MS = 86_400_000;

describe('audit and credentials use real time, not the fleet clock', () => {
  it('stamps audit rows, revisions and sessions with real time after the fleet clock moved 30 days', async () => {
    const db = openDatabase(':memory:');
    await seedDemo(db, new Date());
    const admin = await insertUser(db, { username: 'ada', passwordHash: 'x', role: 'admin', createdAt: new Date() });
    const actor: Actor = { name: 'ada', role: 'admin', via: 'session', userId: admin.id };
    const call = async () =>
      createCaller(
        createContextInner({ db, fleetNow: await getFleetClock(db), realNow: () => new Date(), actor, resHeaders: new Headers() }),
      );

    await (await call()).scheduler.pauseClock({ paused: true });
    const advanced = await (await call()).scheduler.advanceClock({ seconds: 30 * 86_400 });
    const realStart = Date.now();
    // the fleet is now a month ahead of the wall clock
    expect(Date.parse(advanced.now) - realStart).toBeGreaterThan(29 * DAY_MS);

    await (await call()).policies.setFreeze({ frozen: true, reason: 'change freeze' });
    await (
      await call()
    ).exclusions.create({
      scope: 'organization',
      startsAt: new Date(realStart + 40 * DAY_MS).toISOString(),
      endsAt: new Date(realStart + 41 * DAY_MS).toISOString(),
      reason: 'quarter end',
    });
    await (await call()).users.create({ username: 'bob', password: 'a long enough password', role: 'viewer' });
    const realEnd = Date.now();

    const rows = db.select().from(auditLog).all();
    const byAction = new Map(rows.map((r) => [r.action, r]));
    for (const action of ['simulator.pause', 'simulator.advance', 'policy.freeze', 'exclusion.create', 'user.create']) {
      const row = byAction.get(action);
      expect(row, `audit row ${action}`).toBeDefined();
      expect(row!.at.getTime(), action).toBeGreaterThanOrEqual(realStart - 60_000);
      expect(row!.at.getTime(), action).toBeLessThanOrEqual(realEnd);
    }
    const revision = db.select().from(policyRevisions).all().at(-1)!;
    expect(revision.at.getTime()).toBeLessThanOrEqual(realEnd);

    // a session started now lasts 12 real hours, whatever the fleet clock says
    await createCaller(createContextInner({ db, fleetNow: await getFleetClock(db), actor: null, resHeaders: new Headers() }))
      .auth.login({ username: 'bob', password: 'a long enough password' })
      .catch(() => undefined);
    const session = db.select().from(sessions).get();
    expect(session).toBeDefined();
    expect(session!.createdAt.getTime()).toBeLessThanOrEqual(Date.now());
    expect(session!.expiresAt.getTime() - Date.now()).toBeLessThanOrEqual(12 * 3600_000);
  });
});

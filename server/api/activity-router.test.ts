// The Activity feed through the real router: what a viewer can read of each kind of audited
// entity. Webhook URLs and secrets, API tokens and their hashes, and password hashes never reach
// a viewer; each audit action shows only its allow-listed fields (server/services/audit-details.ts).
import fs from 'node:fs';
import path from 'node:path';
import { findFirstOrganization } from '@/server/repositories/organization-repository';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/open-database';
import * as t from '@/db/schema';
import { seedDemo } from '@/server/services/demo-seed-service';
import type { Actor } from '@/server/auth/actor';
import { appendAudit } from '@/server/repositories/audit-repository';
import { AUDIT_DETAILS, auditDetails } from '@/server/services/audit-details';
import { createCaller } from './root';
import { createContextInner } from './trpc';

const NOW = new Date('2024-07-01T12:00:00Z');

async function setup() {
  const db = openDatabase(':memory:');
  await seedDemo(db, NOW);
  const as = (actor: Actor) => createCaller(createContextInner({ db, fleetNow: () => NOW, actor }));
  return { db, as };
}

describe('activity.changes', () => {
  it('shows a viewer no webhook URL, webhook secret, token or hash', async () => {
    const { db, as } = await setup();
    const admin: Actor = { name: 'ada', role: 'admin', via: 'session', userId: 1 };
    const adminCaller = as(admin);
    await adminCaller.users.create({ username: 'ada', password: 'correct horse battery staple', role: 'admin' });
    const adaId = db
      .select()
      .from(t.users)
      .all()
      .find((u) => u.username === 'ada')!.id;
    const ada = as({ ...admin, userId: adaId });

    // a webhook whose URL carries a capability token in its path, as many receivers do
    const hookUrl = 'https://93.184.216.34/hooks/T000/B000/very-secret-capability-path';
    const hookSecret = 'a-webhook-secret-of-the-receiver';
    const hook = await ada.webhooks.create({ name: 'chat', url: hookUrl, secret: hookSecret, events: ['failed'] });
    await ada.webhooks.delete({ id: hook.id });
    const token = await ada.tokens.create({ name: 'ci', scope: 'viewer' });
    await ada.tokens.revoke({ id: token.summary.id });
    await ada.users.create({ username: 'vic', password: 'a long enough password', role: 'viewer' });
    await ada.users.resetPassword({ username: 'vic', password: 'another long password' });

    const viewer = as({ name: 'vic', role: 'viewer', via: 'token' });
    const page = await viewer.activity.changes({ limit: 200, offset: 0 });
    const seen = JSON.stringify(page);
    expect(page.rows.map((r) => r.action)).toEqual(
      expect.arrayContaining(['webhook.create', 'webhook.delete', 'token.create', 'token.revoke', 'user.create', 'user.reset-password']),
    );
    expect(seen).not.toContain('93.184.216.34');
    expect(seen).not.toContain('very-secret-capability-path');
    expect(seen).not.toContain(hookSecret);
    expect(seen).not.toContain(token.token);
    expect(seen).not.toContain(token.token.slice(0, 10)); // not even the shown prefix
    for (const row of db.select().from(t.webhooks).all()) expect(seen).not.toContain(row.secret);
    for (const row of db.select().from(t.apiTokens).all()) expect(seen).not.toContain(row.tokenHash);
    for (const row of db.select().from(t.users).all()) expect(seen).not.toContain(row.passwordHash);
    // still useful: which webhook, which events
    const created = page.rows.find((r) => r.action === 'webhook.create')!;
    expect(created.changes).toEqual([
      { kind: 'added', path: 'name', after: 'chat' },
      { kind: 'added', path: 'events', after: '[failed]' },
    ]);

    // the admin who manages webhooks sees the URL
    const adminPage = await ada.activity.changes({ limit: 200, offset: 0, action: 'webhook.' });
    expect(adminPage.rows.find((r) => r.action === 'webhook.create')!.changes).toContainEqual({
      kind: 'added',
      path: 'url',
      after: hookUrl,
    });
    expect(JSON.stringify(adminPage)).not.toContain(hookSecret);
  });

  it('shows nothing of an audit action that has no allow-list entry', async () => {
    const { db, as } = await setup();
    await appendAudit(db, {
      at: NOW,
      actor: 'x',
      action: 'thing.new',
      target: 'thing:1',
      organizationId: (await findFirstOrganization(db))!.id,
      after: { password: 'hunter2hunter2' },
    });
    const page = await as({ name: 'vic', role: 'viewer', via: 'token' }).activity.changes({ limit: 10, offset: 0, action: 'thing.' });
    expect(page.rows).toMatchObject([{ action: 'thing.new', changes: [], omitted: 0 }]);
    expect(JSON.stringify(page)).not.toContain('hunter2');
  });

  it("shows an organization's members the instance's own rows, not rows without an organization of other kinds", async () => {
    const { db, as } = await setup();
    const row = async (action: string, target: string) =>
      await appendAudit(db, { at: NOW, actor: 'x', action, target, organizationId: null, after: { name: 'n' } });
    await row('user.create', 'user:7');
    // written before rows named their organization, and not placeable by the migration
    await row('webhook.delete', 'webhook:3');
    await row('lifecycle.acknowledge-failure', 'cluster:shared-name');
    const page = await as({ name: 'vic', role: 'viewer', via: 'token' }).activity.changes({ limit: 50, offset: 0 });
    const actions = page.rows.map((r) => r.action);
    expect(actions).toContain('user.create');
    expect(actions).not.toContain('webhook.delete');
    expect(actions).not.toContain('lifecycle.acknowledge-failure');
  });
});

describe('activity.changes field changes', () => {
  it('sends a policy revision as the fields that changed, with both values', async () => {
    const { as } = await setup();
    const olga = as({ name: 'olga', role: 'operator', via: 'session' });
    const cp = await olga.policies.clusterPolicy({ name: 'quay-prod-blue-01' });
    const oldSoak = cp.policy!.conditions!.soakDays!;
    const policy = { ...cp.policy!, conditions: { ...cp.policy!.conditions, soakDays: oldSoak + 7 } };
    await olga.policies.updateClusterPolicy({ name: cp.name, expectedRevision: cp.revision, policy });

    const page = await as({ name: 'vic', role: 'viewer', via: 'token' }).activity.changes({ limit: 50, offset: 0, cluster: cp.name });
    const revision = page.rows.find((r) => r.kind === 'policy' && r.target === `cluster:${cp.name}`)!;
    expect(revision.changes).toEqual([{ kind: 'changed', path: 'conditions.soakDays', before: oldSoak, after: oldSoak + 7 }]);
    expect(revision.omitted).toBe(0);
  });
});

describe('audit-details allow-list', () => {
  it('keeps only listed fields, and admin-only fields for admins', () => {
    const value = { name: 'chat', url: 'https://hooks.example/x', events: [], secret: 's' };
    expect(auditDetails('webhook.create', value, 'member')).toEqual({ name: 'chat', events: [] });
    expect(auditDetails('webhook.create', value, 'admin')).toEqual({ name: 'chat', events: [], url: 'https://hooks.example/x' });
    expect(auditDetails('unknown.action', value, 'admin')).toBeNull();
  });

  it('has an entry for every audit action the server writes', () => {
    // every `action: '<a.b>'` / audit(..., '<a.b>') literal in the services and auth code
    const roots = ['server/services', 'server/auth'];
    const written = new Set<string>();
    for (const root of roots) {
      for (const file of fs.readdirSync(root, { recursive: true }) as string[]) {
        if (!file.endsWith('.ts') || file.endsWith('.test.ts')) continue;
        const text = fs.readFileSync(path.join(root, file), 'utf8');
        if (!/appendAudit|insertAuthAudit|audit\(/.test(text)) continue;
        for (const m of text.matchAll(
          /'((?:auth|user|token|exclusion|webhook|graph|scheduler|simulator|policy|instance|organization)\.[a-z.-]+)'/g,
        )) {
          written.add(m[1]!);
        }
      }
    }
    expect(written.size).toBeGreaterThan(20);
    expect([...written].filter((a) => !a.endsWith('.') && !(a in AUDIT_DETAILS))).toEqual([]);
  });
});

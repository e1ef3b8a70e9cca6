// Acknowledging a version gate through the real router: operators and admins only, one write at
// the provider (re-read first, never twice), the gate no longer pending, one audit row each time;
// a gate that is not pending, or a provider that refuses, changes nothing.
import { describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/open-database';
import * as t from '@/db/schema';
import type { Actor } from '@/server/auth/actor';
import type { FleetProvider } from '@/server/integrations/providers/types';
import { ProviderError } from '@/server/integrations/providers/types';
import { createCaller } from './root';
import { createContextInner } from './trpc';

const NOW = new Date('2026-03-02T08:00:00Z');
const gate = { id: 'gate-416', minor: '4.16', description: 'OpenShift 4.16 removes deprecated APIs', documentationUrl: null };

function setup(opts: { refuse?: boolean } = {}) {
  const db = openDatabase(':memory:');
  const org = db.insert(t.organizations).values({ name: 'org', updatedAt: NOW }).returning().get();
  db.insert(t.clusters)
    .values({
      organizationId: org.id,
      name: 'rosa-1',
      externalId: 'ocm-id-1',
      provider: 'ocm',
      version: '4.15.20',
      channel: 'stable-4.15',
      availableUpgrades: ['4.16.3'],
      pendingVersionGates: [gate],
      observedAt: NOW,
    })
    .run();
  const agreed = new Set<string>();
  const posts: { externalId: string; gateId: string }[] = [];
  const provider = {
    name: 'ocm',
    acknowledgeVersionGate(ref: { externalId: string }, gateId: string) {
      if (opts.refuse) return Promise.reject(new ProviderError('ocm', 'POST gate_agreements → HTTP 403: Forbidden', 403));
      if (agreed.has(gateId)) return Promise.resolve('already-agreed' as const);
      agreed.add(gateId);
      posts.push({ externalId: ref.externalId, gateId });
      return Promise.resolve('agreed' as const);
    },
  } as unknown as FleetProvider;
  const as = (actor: Actor) =>
    createCaller(createContextInner({ db, fleetNow: () => NOW, realNow: () => NOW, actor, provider: () => Promise.resolve(provider) }));
  const audits = () => db.select().from(t.auditLog).all();
  const pending = () => db.select().from(t.clusters).get()!.pendingVersionGates;
  return { db, as, posts, agreed, audits, pending };
}

const operator: Actor = { name: 'olga', role: 'operator', via: 'session', userId: 2 };
const admin: Actor = { name: 'ada', role: 'admin', via: 'session', userId: 1 };
const viewer: Actor = { name: 'vic', role: 'viewer', via: 'session', userId: 3 };

describe('clusters.acknowledgeVersionGate', () => {
  it('agrees once at the provider (with the OCM cluster id), takes the gate off the cluster and audits it', async () => {
    const { as, posts, audits, pending } = setup();
    const result = await as(operator).clusters.acknowledgeVersionGate({ cluster: 'rosa-1', gateId: 'gate-416' });
    expect(result).toMatchObject({ cluster: 'rosa-1', gateId: 'gate-416', minor: '4.16', atProvider: 'agreed', acknowledgedBy: 'olga' });
    expect(posts).toEqual([{ externalId: 'ocm-id-1', gateId: 'gate-416' }]);
    expect(pending()).toEqual([]);
    expect(audits()).toMatchObject([
      {
        actor: 'olga',
        action: 'cluster.acknowledge-version-gate',
        target: 'rosa-1@4.16',
        before: { gateId: 'gate-416', minor: '4.16', agreed: false },
        after: { agreed: true, atProvider: 'agreed' },
      },
    ]);
    // again: not pending any more, refused, nothing written
    await expect(as(admin).clusters.acknowledgeVersionGate({ cluster: 'rosa-1', gateId: 'gate-416' })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    expect(posts).toHaveLength(1);
    expect(audits()).toHaveLength(1);
  });

  it('two clicks at once go to the provider once', async () => {
    const { as, posts, audits } = setup();
    const [a, b] = await Promise.all([
      as(operator).clusters.acknowledgeVersionGate({ cluster: 'rosa-1', gateId: 'gate-416' }),
      as(admin).clusters.acknowledgeVersionGate({ cluster: 'rosa-1', gateId: 'gate-416' }),
    ]);
    expect(a).toEqual(b);
    expect(posts).toHaveLength(1);
    expect(audits()).toHaveLength(1);
  });

  it('records an agreement the provider already had (agreed in the OCM console) without writing there', async () => {
    const { as, posts, agreed, audits } = setup();
    agreed.add('gate-416');
    await expect(as(admin).clusters.acknowledgeVersionGate({ cluster: 'rosa-1', gateId: 'gate-416' })).resolves.toMatchObject({
      atProvider: 'already-agreed',
    });
    expect(posts).toEqual([]);
    expect(audits()).toMatchObject([{ actor: 'ada', after: { atProvider: 'already-agreed' } }]);
  });

  it('refuses viewers, and changes nothing when the provider refuses', async () => {
    const refused = setup({ refuse: true });
    await expect(refused.as(operator).clusters.acknowledgeVersionGate({ cluster: 'rosa-1', gateId: 'gate-416' })).rejects.toThrow(
      'ocm did not take the agreement: POST gate_agreements → HTTP 403: Forbidden',
    );
    expect(refused.pending()).toEqual([gate]);
    expect(refused.audits()).toEqual([]);

    const { as, posts, audits, pending } = setup();
    await expect(as(viewer).clusters.acknowledgeVersionGate({ cluster: 'rosa-1', gateId: 'gate-416' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await expect(as(operator).clusters.acknowledgeVersionGate({ cluster: 'nope', gateId: 'gate-416' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(as(operator).clusters.acknowledgeVersionGate({ cluster: 'rosa-1', gateId: 'gate-999' })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    expect(posts).toEqual([]);
    expect(audits()).toEqual([]);
    expect(pending()).toEqual([gate]);
  });
});

import { describe, expect, it } from 'vitest';
import { openDatabase } from '@/db/open-database';
import { listAudit as listActivityAudit } from './activity-repository';
import { appendAudit, listAudit } from './audit-repository';

async function dbWith(entries: Array<{ target: string; action: string; at: string }>) {
  const db = openDatabase(':memory:');
  for (const e of entries)
    await appendAudit(db, { at: new Date(e.at), actor: 'alice', action: e.action, target: e.target, organizationId: null });
  return db;
}

describe('audit filters', async () => {
  const db = await dbWith([
    { target: 'cluster:prod_a', action: 'exclusion.create', at: '2026-01-01T10:00:00Z' },
    { target: 'cluster:prodXa', action: 'exclusion.create', at: '2026-01-01T11:00:00Z' },
    { target: 'cluster:prod_a', action: 'policy.cluster.save', at: '2026-01-01T12:00:00Z' },
  ]);

  it('matches a target substring literally: `_` and `%` in a cluster name are not wildcards', async () => {
    const rows = (await listAudit(db, { filter: { targetContains: 'prod_a' } })).rows;
    expect(rows.map((r) => r.target)).toEqual(['cluster:prod_a', 'cluster:prod_a']);
    expect((await listAudit(db, { filter: { targetContains: '%' } })).total).toBe(0);
  });

  it('ends a range inclusively with `through` and exclusively with `to`', async () => {
    const noon = new Date('2026-01-01T12:00:00Z');
    expect((await listAudit(db, { filter: { through: noon } })).total).toBe(3);
    expect((await listAudit(db, { filter: { to: noon } })).total).toBe(2);
  });

  it('gives the Activity page the same rows through its cluster, action-prefix and date filters', async () => {
    const { rows, total } = await listActivityAudit(
      db,
      { cluster: 'prod_a', action: 'exclusion', to: new Date('2026-01-01T12:00:00Z') },
      0,
      10,
    );
    expect(total).toBe(1);
    expect(rows[0]).toMatchObject({ target: 'cluster:prod_a', action: 'exclusion.create' });
  });
});

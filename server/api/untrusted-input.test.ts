// Text and names from outside, through the tRPC procedures over a real (in-memory) database:
// a bad input is a BAD_REQUEST with a clear problem, never a 500, and writes nothing.
import { beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '@/db/open-database';
import { seedDemo } from '@/server/services/demo-seed-service';
import type { Actor } from '@/server/auth/actor';
import { AppError } from '@/server/services/app-error';
import { createCaller } from './root';
import { createContextInner } from './trpc';

const NOW = new Date('2026-11-22T12:00:00Z');
const RLO = '\u202E';
const operator: Actor = { name: 'untrusted-operator', role: 'operator', via: 'session', userId: 1 };
const admin: Actor = { name: 'untrusted-admin', role: 'admin', via: 'session', userId: 1 };

let db: Db;

beforeEach(async () => {
  db = openDatabase(':memory:');
  await seedDemo(db, NOW);
});

function as(actor: Actor) {
  return createCaller(createContextInner({ db, fleetNow: () => NOW, actor }));
}

/** Every table's rows, to prove a refused call wrote nothing. */
function dump(): unknown {
  const tables = db.$client.prepare("select name from sqlite_master where type = 'table' order by name").all() as { name: string }[];
  return Object.fromEntries(tables.map(({ name }) => [name, db.$client.prepare(`select * from "${name}"`).all()]));
}

async function rejection(p: Promise<unknown>): Promise<{ code: string; message: string; problems: { path: string; message: string }[] }> {
  try {
    await p;
  } catch (err) {
    const e = err as { code?: string; message?: string; cause?: unknown };
    const cause = e.cause instanceof AppError ? e.cause : undefined;
    return { code: e.code ?? 'UNKNOWN', message: e.message ?? '', problems: cause?.problems ?? [] };
  }
  throw new Error('expected the call to fail');
}

const BILLION_LAUGHS = [
  'name: my-org',
  'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  ...'bcdefghi'.split('').map((name, i) => `${name}: &${name} [${Array(9).fill(`*${'abcdefghi'[i]}`).join(',')}]`),
].join('\n');

describe('policies.importOrganization: untrusted YAML', () => {
  it.each([false, true])('answers a billion laughs with BAD_REQUEST at (document), not a 500 (dryRun %s)', async (dryRun) => {
    const before = dump();
    const err = await rejection(as(operator).policies.importOrganization({ yaml: BILLION_LAUGHS, dryRun }));
    expect(err.code).toBe('BAD_REQUEST');
    expect(err.problems).toEqual([
      { path: '(document)', message: expect.stringMatching(/^aliases expand the document to more than/) as unknown },
    ]);
    expect(dump()).toEqual(before);
  });

  it('answers a 40,000-key file with its problems (the file that froze the server)', async () => {
    const yaml = ['name: my-org', ...Array.from({ length: 40_000 }, (_, i) => `k${i}: v${i}`), 'k77: again'].join('\n');
    const err = await rejection(as(operator).policies.importOrganization({ yaml, dryRun: true }));
    expect(err.code).toBe('BAD_REQUEST');
    expect(err.problems).toEqual([
      { path: 'line 40002', line: 40002, message: 'invalid YAML: duplicate key k77 (the keys of a mapping must be unique)' },
    ]);
  });

  it('refuses a file over the size limit, counted in bytes (the input limit counts characters)', async () => {
    const yaml = `name: my-org\ndescription: "${'€'.repeat(1_800_000)}"\n`; // 1.8 M characters, 5.4 MB
    const err = await rejection(as(operator).policies.importOrganization({ yaml, dryRun: true }));
    expect(err.code).toBe('BAD_REQUEST');
    expect(err.problems).toEqual([
      { path: '(document)', message: expect.stringMatching(/^the text is 5\.1 MB .* over the limit of 5\.0 MB/) as unknown },
    ]);
  });

  it('refuses names with control or bidi characters at their paths in the file', async () => {
    const before = dump();
    const yaml = [`name: "my-org${RLO}"`, 'sectors:', '- name: "stage\\0"', 'upgradePolicyClusters: []'].join('\n');
    const err = await rejection(as(operator).policies.importOrganization({ yaml }));
    expect(err.code).toBe('BAD_REQUEST');
    expect(err.problems).toEqual([
      { path: 'name', message: 'not a valid name: contains a bidirectional control character U+202E at position 7' },
      { path: 'sectors[0].name', message: 'not a valid name: contains a control character U+0000 at position 6' },
    ]);
    expect(dump()).toEqual(before);
  });
});

describe('names entering through the API', () => {
  it('policies.updateOrganization: a sector name with a bidi override is refused at its path', async () => {
    const op = as(operator);
    const org = await op.policies.organization();
    const before = dump();
    const sectors = org.sectors.map((s) => ({ name: s.name, maxParallelUpgrades: s.maxParallelUpgrades, dependencies: s.dependencies }));
    sectors.push({ name: `canary${RLO}`, maxParallelUpgrades: null, dependencies: [] });
    const err = await rejection(
      op.policies.updateOrganization({
        expectedRevision: org.revision,
        organization: {
          sectors,
          blockedVersions: org.blockedVersions.map((b) => ({ pattern: b.pattern, reason: b.reason })),
          upgradePolicyAllowedWorkloads: org.upgradePolicyAllowedWorkloads,
          upgradePolicyAllowedMutexes: org.upgradePolicyAllowedMutexes,
        },
      }),
    );
    expect(err.code).toBe('BAD_REQUEST');
    expect(err.problems).toContainEqual(
      expect.objectContaining({ message: 'not a valid name: contains a bidirectional control character U+202E at position 7' }),
    );
    expect(dump()).toEqual(before);
  });

  it.each([
    ['tokens.create', () => as(admin).tokens.create({ name: `ci${RLO}`, scope: 'viewer' })],
    ['webhooks.create', () => as(admin).webhooks.create({ name: 'ops\u0000', url: 'https://93.184.216.34/hook', events: [] })],
    ['graphs.import', () => as(operator).graphs.import({ fileName: 'g.json', text: '{"nodes":[],"edges":[]}', name: `g\uD800` })],
    [
      'exclusions.create',
      () =>
        as(operator).exclusions.create({
          scope: 'sector',
          subject: `prod-blue${RLO}`,
          startsAt: '2026-12-01T00:00:00Z',
          endsAt: '2026-12-02T00:00:00Z',
          reason: 'freeze',
        }),
    ],
  ])('%s refuses a name with a control, bidi or surrogate character', async (_procedure, call) => {
    const before = dump();
    const err = await rejection(call());
    expect(err.code).toBe('BAD_REQUEST');
    expect(err.message).toMatch(
      /not a valid name: contains (a control character|a bidirectional control character|a lone surrogate) U\+[0-9A-F]{4}/,
    );
    expect(dump()).toEqual(before);
  });

  it('still accepts ordinary names (trimmed where the procedure trims)', async () => {
    await as({ name: 'setup', role: 'admin', via: 'system' }).users.create({
      username: 'alice',
      password: 'correct horse battery',
      role: 'admin',
    });
    const { id } = db.$client.prepare("select id from users where username = 'alice'").get() as { id: number };
    const alice: Actor = { name: 'alice', role: 'admin', via: 'session', userId: id };
    await expect(as(alice).tokens.create({ name: '  ci Zürich  ', scope: 'viewer' })).resolves.toMatchObject({
      summary: { name: 'ci Zürich' },
    });
    await expect(as(admin).webhooks.create({ name: 'ops 東京', url: 'https://93.184.216.34/hook', events: [] })).resolves.toBeDefined();
  });
});

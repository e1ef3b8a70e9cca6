import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { revalidateVersionData, type ValidatedVersionData } from './revalidate-version-data';
import { validateVersionData } from './validate-plan-input';

const NOW = '2026-11-27T05:00:00Z';

// a small pool of names, so that documents share versions, workloads and reporting clusters
const versionKey = fc.constantFrom('4.13.1', '4.13.2', '4.14.0', '4.14.1-rc.1', 'not-a-version');
const workloadKey = fc.constantFrom('web', 'db', 'batch', 'constructor');
const reportingItem = fc.oneof(
  { weight: 20, arbitrary: fc.constantFrom('a', 'b', 'c', 'd', 'e') },
  { weight: 1, arbitrary: fc.constant(7) },
);
const reporting = fc.oneof(
  { weight: 12, arbitrary: fc.array(reportingItem, { maxLength: 6 }) },
  { weight: 1, arbitrary: fc.constantFrom(null, undefined, 'a') },
);
const soakDays = fc.oneof(
  { weight: 12, arbitrary: fc.double({ min: 0, max: 30, noNaN: true }) },
  { weight: 1, arbitrary: fc.constantFrom(-1, null, '3') },
);
const workload = fc.oneof(
  { weight: 12, arbitrary: fc.record({ soakDays, reporting }) },
  { weight: 1, arbitrary: fc.constantFrom(null, 'x') },
);
const entry = fc.oneof(
  { weight: 12, arbitrary: fc.record({ workloads: fc.dictionary(workloadKey, workload, { maxKeys: 4 }) }) },
  { weight: 1, arbitrary: fc.constantFrom(null, 3, { workloads: null }, { workloads: [] }) },
);
const document = fc.record(
  {
    checkIn: fc.constantFrom('2026-11-27T04:00:00Z', '2026-11-28T00:00:00Z', 'soon', undefined),
    versions: fc.dictionary(versionKey, entry, { maxKeys: 5 }),
  },
  { requiredKeys: ['versions'] },
);

/**
 * The next document after a write: each reporting list kept as it was (the same array, or a copy
 * of it, as the repository reads it again), changed, or taken from the second document.
 */
function nextDocument(before: unknown, other: unknown, choices: number[]): unknown {
  let i = 0;
  const choose = () => choices[i++ % choices.length]!;
  const copy = (v: unknown): unknown => {
    if (Array.isArray(v)) return choose() % 3 === 0 ? v : [...(v as unknown[])];
    if (typeof v !== 'object' || v === null) return v;
    return Object.fromEntries(
      Object.entries(v).map(([k, x]: [string, unknown]) => {
        if (k === 'soakDays' && choose() % 4 === 0) return [k, typeof x === 'number' ? x + 1 : x];
        if (k === 'reporting' && Array.isArray(x)) {
          const list = x as unknown[];
          const change = choose() % 8;
          if (change === 0) return [k, [...list, 'f']];
          if (change === 1) return [k, list.slice(0, -1)];
          if (change === 2) return [k, list.map((item, j) => (j === 0 ? 'e' : item))];
        }
        return [k, copy(x)];
      }),
    );
  };
  const next = copy(before) as { versions: Record<string, unknown> };
  const versions = (other as { versions: Record<string, unknown> }).versions;
  for (const [k, v] of Object.entries(versions)) if (choose() % 3 === 0) next.versions[k] = v;
  return next;
}

const bare = (result: { ok: true; validated: ValidatedVersionData } | { ok: false; problems: unknown }) =>
  result.ok ? { ok: true, versionData: result.validated.versionData } : result;

describe('revalidateVersionData', () => {
  it('equals validateVersionData after random changes, key order included', () => {
    fc.assert(
      fc.property(document, document, fc.array(fc.nat(60), { minLength: 1, maxLength: 40 }), (first, other, choices) => {
        const previous = revalidateVersionData(first, NOW, null);
        expect(bare(previous)).toEqual(validateVersionData(first, NOW));
        const raw = nextDocument(first, other, choices);
        const expected = validateVersionData(raw, NOW);
        const actual = bare(revalidateVersionData(raw, NOW, previous.ok ? previous.validated : null));
        expect(actual).toEqual(expected);
        expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
      }),
      { numRuns: 2000 },
    );
  });

  it('reuses the validated list of an unchanged reporting list and validates a changed one', () => {
    const first = {
      versions: { '4.13.1': { workloads: { web: { soakDays: 1, reporting: ['a', 'a', 'b'] }, db: { soakDays: 1, reporting: ['c'] } } } },
    };
    const previous = revalidateVersionData(first, NOW, null);
    if (!previous.ok) throw new Error('the first document validates');
    const second = {
      versions: {
        '4.13.1': { workloads: { web: { soakDays: 2, reporting: ['a', 'a', 'b'] }, db: { soakDays: 2, reporting: ['c', 'd'] } } },
      },
    };
    const next = revalidateVersionData(second, NOW, previous.validated);
    if (!next.ok) throw new Error('the second document validates');
    const before = previous.validated.versionData.versions['4.13.1']!.workloads;
    const after = next.validated.versionData.versions['4.13.1']!.workloads;
    expect(after.web).toEqual({ soakDays: 2, reporting: ['a', 'b'] });
    expect(after.web!.reporting).toBe(before.web!.reporting);
    expect(after.db).toEqual({ soakDays: 2, reporting: ['c', 'd'] });
    expect(before.db).toEqual({ soakDays: 1, reporting: ['c'] });
  });

  it('tells the problems of a document whose unchanged lists were fine as a whole validation does', () => {
    const first = { versions: { '4.13.1': { workloads: { web: { soakDays: 1, reporting: ['a'] } } } } };
    const previous = revalidateVersionData(first, NOW, null);
    if (!previous.ok) throw new Error('the first document validates');
    const second = { checkIn: '2026-11-28T00:00:00Z', versions: { '4.13.1': { workloads: { web: { soakDays: -1, reporting: ['a'] } } } } };
    const next = revalidateVersionData(second, NOW, previous.validated);
    expect(next).toEqual(validateVersionData(second, NOW));
    expect(next.ok).toBe(false);
  });
});

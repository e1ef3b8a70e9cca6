import { describe, expect, it } from 'vitest';
import { fieldChanges, fieldValue } from './field-changes';

describe('fieldChanges', () => {
  it('lists changed, added and removed fields by path with both values', () => {
    const before = { conditions: { soakDays: 2, minimumHealthyReplicas: 1 }, schedule: { location: 'UTC' }, freeze: true };
    const after = {
      conditions: { soakDays: 5, minimumHealthyReplicas: 1 },
      schedule: { location: 'Europe/Berlin', weekdays: ['mon', 'tue'] },
    };
    expect(fieldChanges(before, after)).toEqual({
      changes: [
        { kind: 'changed', path: 'conditions.soakDays', before: 2, after: 5 },
        { kind: 'changed', path: 'schedule.location', before: 'UTC', after: 'Europe/Berlin' },
        { kind: 'added', path: 'schedule.weekdays', after: '[mon, tue]' },
        { kind: 'removed', path: 'freeze', before: true },
      ],
      omitted: 0,
    });
  });

  it('reads a creation and a deletion as the fields of the value, nested ones spelled out', () => {
    expect(fieldChanges(null, { name: 'chat', events: ['failed'], retry: { max: 3 } }).changes).toEqual([
      { kind: 'added', path: 'name', after: 'chat' },
      { kind: 'added', path: 'events', after: '[failed]' },
      { kind: 'added', path: 'retry.max', after: 3 },
    ]);
    expect(fieldChanges({ name: 'chat' }, undefined).changes).toEqual([{ kind: 'removed', path: 'name', before: 'chat' }]);
  });

  it('spells the fields of an added object at the paths diffJson gives them (ambiguous keys quoted)', () => {
    const changed = fieldChanges({ versions: { '4.13.1': { note: 'a' } } }, { versions: { '4.13.1': { note: 'b' } } }).changes;
    expect(changed).toEqual([{ kind: 'changed', path: 'versions."4.13.1".note', before: 'a', after: 'b' }]);
    expect(fieldChanges({ versions: {} }, { versions: { '4.13.1': { note: 'b' } } }).changes).toEqual([
      { kind: 'added', path: 'versions."4.13.1".note', after: 'b' },
    ]);
    expect(fieldChanges(null, { versions: { '4.13.1': { 'my note': 'b' } } }).changes).toEqual([
      { kind: 'added', path: 'versions."4.13.1"."my note"', after: 'b' },
    ]);
  });

  it('shows a scalar that appears or changes type at the root', () => {
    expect(fieldChanges(null, 'paused').changes).toEqual([{ kind: 'added', path: '(root)', after: 'paused' }]);
    expect(fieldChanges({ a: 1, b: 2 }, 'gone').changes).toEqual([
      { kind: 'changed', path: '(root)', before: '{2 fields}', after: 'gone' },
    ]);
    expect(fieldChanges(null, null)).toEqual({ changes: [], omitted: 0 });
  });

  it('stops at the limit and counts the rest', () => {
    const after = Object.fromEntries(Array.from({ length: 45 }, (_, i) => [`k${i}`, i]));
    const { changes, omitted } = fieldChanges({}, after, 40);
    expect(changes).toHaveLength(40);
    expect(omitted).toBe(5);
  });
});

describe('fieldValue', () => {
  it('clips long text and summarizes deep values', () => {
    expect(fieldValue('x'.repeat(500))).toHaveLength(200);
    expect(String(fieldValue('x'.repeat(500))).endsWith('…')).toBe(true);
    expect(fieldValue([{ a: 1 }, { b: 2 }])).toBe('[2 items]');
    expect(fieldValue({})).toBe('{0 fields}');
    expect(fieldValue(null)).toBeNull();
  });

  it('names a non-JSON value by its kind, never by its source text', () => {
    expect(fieldValue(undefined)).toBe('undefined');
    expect(fieldValue(() => 'source text')).toBe('function');
    expect(fieldValue(12n)).toBe('12');
  });
});

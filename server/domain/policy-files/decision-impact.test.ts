import { describe, expect, it } from 'vitest';
import type { Decision } from '../plan/types';
import { diffDecisions } from './decision-impact';

describe('diffDecisions', () => {
  it('lists clusters whose action, version, reason or next run differ, in the order of the new run, ignoring message wording', () => {
    const before: Decision[] = [
      { cluster: 'a', action: 'skip', reason: 'NOT_SOAKED', message: 'waiting' },
      { cluster: 'b', action: 'upgrade', version: '4.12.1', nextRun: '2024-01-01T00:00:00Z', message: 'go' },
      { cluster: 'gone', action: 'skip', reason: 'NOT_SOAKED', message: 'x' },
    ];
    const after: Decision[] = [
      { cluster: 'new', action: 'skip', reason: 'NOT_SOAKED', message: 'x' },
      { cluster: 'b', action: 'upgrade', version: '4.12.2', nextRun: '2024-01-01T00:00:00Z', message: 'go' },
      { cluster: 'a', action: 'skip', reason: 'NOT_SOAKED', message: 'worded otherwise' },
    ];
    const { changes, evaluated } = diffDecisions(before, after);
    expect(evaluated).toBe(4);
    expect(changes.map((c) => c.cluster)).toEqual(['new', 'b', 'gone']);
    expect(changes[0]).toEqual({
      cluster: 'new',
      before: null,
      after: { action: 'skip', version: null, reason: 'NOT_SOAKED', nextRun: null, message: 'x' },
    });
    expect(changes[1]?.before?.version).toBe('4.12.1');
    expect(changes[2]?.after).toBeNull();
  });
});

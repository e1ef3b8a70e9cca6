import { describe, expect, it } from 'vitest';
import { scalarText, strings } from './policy-doc';

describe('the YAML pane read into form fields', () => {
  it('spells out scalars and leaves mappings, lists and null empty (never "[object Object]")', () => {
    expect(['prod', 5, 12.5, true, { a: 1 }, ['x'], null, undefined].map(scalarText)).toEqual([
      'prod',
      '5',
      '12.5',
      'true',
      '',
      '',
      '',
      '',
    ]);
  });

  it('keeps list positions, so a problem at workloads[1] still points at the second entry', () => {
    expect(strings(['web', { name: 'db' }, 3])).toEqual(['web', '', '3']);
    expect(strings({ web: true })).toEqual([]);
  });
});

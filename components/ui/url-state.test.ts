import { describe, expect, it } from 'vitest';
import { hrefWith, readUrlState, writeUrlState } from './url-state';

const DEFAULTS = { q: '', sort: 'name', page: 1, conditional: false };

describe('readUrlState', () => {
  it('reads each field as the type of its default', () => {
    const values = readUrlState(new URLSearchParams('q=prod&sort=version&page=3&conditional=1'), DEFAULTS);
    expect(values).toEqual({ q: 'prod', sort: 'version', page: 3, conditional: true });
  });

  it('falls back to the default for a malformed number or switch, and for missing fields', () => {
    expect(readUrlState(new URLSearchParams('page=three&conditional=maybe'), DEFAULTS)).toEqual(DEFAULTS);
    expect(readUrlState(new URLSearchParams('page='), DEFAULTS).page).toBe(1);
  });
});

describe('writeUrlState', () => {
  it('leaves out fields equal to their default and keeps parameters that are not fields', () => {
    const query = writeUrlState(new URLSearchParams('tab=actions&q=old'), DEFAULTS, { ...DEFAULTS, page: 2, conditional: true });
    const params = new URLSearchParams(query);
    expect(params.get('tab')).toBe('actions');
    expect(params.has('q')).toBe(false);
    expect(params.get('page')).toBe('2');
    expect(params.get('conditional')).toBe('1');
  });

  it('is the empty string when every field is at its default', () => {
    expect(writeUrlState(new URLSearchParams('q=x'), DEFAULTS, DEFAULTS)).toBe('');
  });

  it('round-trips through readUrlState', () => {
    const values = { q: 'a b&c', sort: 'nextRun', page: 7, conditional: true };
    expect(readUrlState(new URLSearchParams(writeUrlState(new URLSearchParams(), DEFAULTS, values)), DEFAULTS)).toEqual(values);
  });
});

describe('hrefWith', () => {
  it('encodes the given values and drops empty ones', () => {
    expect(hrefWith('/fleet', { version: '4.13.41', sector: undefined, state: '' })).toBe('/fleet?version=4.13.41');
    expect(hrefWith('/fleet', {})).toBe('/fleet');
  });
});

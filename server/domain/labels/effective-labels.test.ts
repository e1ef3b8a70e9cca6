import { describe, expect, it } from 'vitest';
import { applyLabelChanges, parseLabelChanges } from './effective-labels';

describe('label changes as kubectl label writes them', () => {
  it('takes keys that are also names of object properties', () => {
    const parsed = parseLabelChanges(['constructor=x', 'toString=y', 'hasOwnProperty-']);
    expect(parsed).toEqual({ ok: true, changes: { set: { constructor: 'x', toString: 'y' }, remove: ['hasOwnProperty'] } });
    if (!parsed.ok) throw new Error('unreachable');
    expect(applyLabelChanges({ hasOwnProperty: 'z', env: 'prod' }, parsed.changes)).toEqual({
      constructor: 'x',
      env: 'prod',
      toString: 'y',
    });
  });

  it('refuses a key set twice to different values, and a key both set and removed', () => {
    expect(parseLabelChanges(['env=prod', 'env=stage'])).toMatchObject({ ok: false, problems: ["'env=stage': env is set twice"] });
    expect(parseLabelChanges(['env=prod', 'env-'])).toMatchObject({ ok: false, problems: ['env is both set and removed'] });
  });
});

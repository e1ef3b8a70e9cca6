import { describe, expect, it } from 'vitest';
import { eusLagHint } from './eus-lag-hint';
import { makeIndex } from './test-builders';

const index = makeIndex({
  nodes: [
    ['4.8.10', ['stable-4.8', 'eus-4.8']],
    ['4.8.12', ['stable-4.8', 'eus-4.8']],
    ['4.8.20', ['stable-4.8']],
    ['4.9.1', ['stable-4.9']],
  ],
});

describe('eusLagHint', () => {
  it('names the newest release of the source minor the channel holds, older than the source', () => {
    const hint = eusLagHint(index, 'eus-4.8', '4.8.20');
    expect(hint).toMatch(/^EUS channels lag GA/);
    expect(hint).toContain('The newest 4.8 release in eus-4.8 is 4.8.12, older than 4.8.20: wait until eus-4.8 catches up');
  });

  it('suggests updating within the minor when the channel holds a newer release of it', () => {
    expect(eusLagHint(index, 'eus-4.8', '4.8.11')).toContain('is 4.8.12: update to it within 4.8 first, then switch channel.');
  });

  it('says when the channel holds no release of the source minor', () => {
    expect(eusLagHint(index, 'eus-4.8', '4.9.1')).toContain('eus-4.8 holds no 4.9 release at all');
  });

  it('is null for other channels, no channel, or a source that is not a version', () => {
    expect(eusLagHint(index, 'stable-4.8', '4.8.20')).toBeNull();
    expect(eusLagHint(index, null, '4.8.20')).toBeNull();
    expect(eusLagHint(index, 'eus-4.8', 'latest')).toBeNull();
  });
});

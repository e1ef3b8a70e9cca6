import { describe, expect, it } from 'vitest';
import { parseChannelName, sortChannelNames, sortChannelsFor } from './channel-names';

describe('parseChannelName', () => {
  it('splits prefix and minor, and refuses other shapes', () => {
    expect(parseChannelName('stable-4.12')).toEqual({ prefix: 'stable', major: 4, minor: 12 });
    expect(parseChannelName('4.12-stable')).toBeNull();
    expect(parseChannelName('Stable-4.12')).toBeNull();
  });
});

describe('sortChannelNames', () => {
  it('lists eus, stable, fast, candidate, then others; newest minor first; unparsable names last by name', () => {
    const names = ['weird', 'fast-4.9', 'okd-4.10', 'stable-4.9', 'candidate-4.10', 'eus-4.8', 'stable-4.10', 'eus-4.10', 'another'];
    expect(sortChannelNames(names)).toEqual([
      'eus-4.10',
      'eus-4.8',
      'stable-4.10',
      'stable-4.9',
      'fast-4.9',
      'candidate-4.10',
      'okd-4.10',
      'another',
      'weird',
    ]);
  });
});

describe('sortChannelsFor', () => {
  it('prefers the prefix, then the release minor, then newer minors, then older ones', () => {
    const names = ['stable-4.8', 'stable-4.10', 'stable-4.9', 'eus-4.10', 'fast-4.9'];
    expect(sortChannelsFor(names, '4.9.3')).toEqual(['eus-4.10', 'stable-4.9', 'stable-4.10', 'stable-4.8', 'fast-4.9']);
  });
});

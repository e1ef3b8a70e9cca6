import { describe, expect, it } from 'vitest';
import { channelsContaining, listChannels } from './channel-summary';
import { makeIndex } from './test-builders';

const index = makeIndex({
  nodes: [
    ['4.7.3', ['stable-4.7', 'eus-4.8']],
    ['4.8.1', ['stable-4.8', 'eus-4.8']],
    ['4.8.10', ['stable-4.8', 'eus-4.8', 'fast-4.8']],
    ['4.7.9', ['stable-4.7']],
  ],
});

describe('listChannels', () => {
  it('summarizes each channel, eus first and newest minor first', () => {
    expect(listChannels(index)).toEqual([
      { name: 'eus-4.8', releases: 3, minVersion: '4.7.3', maxVersion: '4.8.10', minors: ['4.7', '4.8'] },
      { name: 'stable-4.8', releases: 2, minVersion: '4.8.1', maxVersion: '4.8.10', minors: ['4.8'] },
      { name: 'stable-4.7', releases: 2, minVersion: '4.7.3', maxVersion: '4.7.9', minors: ['4.7'] },
      { name: 'fast-4.8', releases: 1, minVersion: '4.8.10', maxVersion: '4.8.10', minors: ['4.8'] },
    ]);
  });
});

describe('channelsContaining', () => {
  it('lists the channels of a release (build suffix ignored) in display order, none for an unknown one', () => {
    expect(channelsContaining(index, '4.8.10+amd64')).toEqual(['eus-4.8', 'stable-4.8', 'fast-4.8']);
    expect(channelsContaining(index, '4.9.0')).toEqual([]);
  });
});

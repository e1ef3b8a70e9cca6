import { describe, expect, it } from 'vitest';
import { DURATION_MODEL as M, estimateUpdateDuration } from './estimate-duration';
import { renderMirrorList } from './mirror-list';

describe('estimateUpdateDuration', () => {
  it('scales the control plane by node count and rolls paused workers out once', () => {
    const e = estimateUpdateDuration({ path: ['4.6.1', '4.6.62', '4.7.60', '4.8.54'], workerNodes: 10, workersPaused: true });
    expect(e.hops.map((h) => h.kind)).toEqual(['patch', 'minor', 'minor']);
    const perNode = M.DAEMONSET_MINUTES_PER_NODE * 13;
    expect(e.controlPlaneMinutes).toBe(Math.round(M.PATCH_HOP_MINUTES + perNode) + 2 * Math.round(M.MINOR_HOP_MINUTES + perNode));
    expect(e.workerRollouts).toBe(1);
    expect(e.workerMinutes).toBe(10 * M.WORKER_NODE_MINUTES);
    expect(e.totalMinutes).toBe(e.controlPlaneMinutes + e.workerMinutes);
    expect(e.model).toMatch(/per node/);
  });

  it('rolls unpaused workers out once per hop, maxUnavailable at a time', () => {
    const e = estimateUpdateDuration({ path: ['4.12.1', '4.12.9', '4.12.40'], workerNodes: 9, workersPaused: false, maxUnavailable: 3 });
    expect(e.workerRollouts).toBe(2);
    expect(e.workerMinutes).toBe(2 * 3 * M.WORKER_NODE_MINUTES);
  });

  it('is zero for a zero-hop path', () => {
    expect(estimateUpdateDuration({ path: ['4.12.1'], workerNodes: 9, workersPaused: true }).totalMinutes).toBe(0);
  });
});

describe('renderMirrorList', () => {
  const releases = [
    { version: '4.6.1', payload: 'quay.io/a@sha256:1' },
    { version: '4.7.60', payload: 'quay.io/a@sha256:2' },
  ];
  it('prints one line per release in path order', () => {
    expect(renderMirrorList(releases, 'text')).toBe('4.6.1 quay.io/a@sha256:1\n4.7.60 quay.io/a@sha256:2\n');
  });
  it('prints JSON', () => {
    expect(JSON.parse(renderMirrorList(releases, 'json'))).toEqual({ releases });
  });
});

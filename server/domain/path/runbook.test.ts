import { describe, expect, it } from 'vitest';
import { buildRunbook } from './runbook';
import { adminGatesForHop } from './admin-gates';

describe('adminGatesForHop', () => {
  it.each([
    ['4.8.54', '4.9.53', ['ack-4.8-kube-1.22-api-removals-in-4.9']],
    ['4.12.40', '4.13.29', ['ack-4.12-kube-1.26-api-removals-in-4.13']],
    ['4.15.9', '4.16.2', ['ack-4.15-kube-1.29-api-removals-in-4.16']],
    ['4.7.60', '4.8.54', []],
    ['4.8.1', '4.8.54', []],
  ])('%s → %s needs %j', (from, to, gates) => {
    expect(adminGatesForHop(from, to)).toEqual(gates);
  });
});

describe('buildRunbook', () => {
  it('lays out the EUS-to-EUS procedure: channel, pause, one update per hop, admin ack, unpause', () => {
    const rb = buildRunbook({ path: ['4.8.20', '4.9.53', '4.10.40'], channel: 'eus-4.10' });
    expect(rb.steps.map((s) => s.kind)).toEqual(['preflight', 'channel', 'pause', 'admin-ack', 'update', 'update', 'unpause', 'verify']);
    const commands = rb.steps.flatMap((s) => s.commands);
    expect(commands).toContain('oc adm upgrade channel eus-4.10');
    expect(commands).toContain(`oc patch mcp/worker --type merge -p '{"spec":{"paused":true}}'`);
    expect(commands).toContain('oc adm upgrade --to=4.9.53');
    expect(commands).toContain('oc adm upgrade --to=4.10.40');
    expect(commands).toContain(
      `oc -n openshift-config patch cm admin-acks --type=merge --patch '{"data":{"ack-4.8-kube-1.22-api-removals-in-4.9":"true"}}'`,
    );
    expect(commands).toContain(`oc patch mcp/worker --type merge -p '{"spec":{"paused":false}}'`);
    expect(rb.pausesWorkers).toBe(true);
    expect(rb.text).toContain('oc adm upgrade --to=4.9.53');
  });

  it('does not pause workers for a z-stream-only path', () => {
    const rb = buildRunbook({ path: ['4.12.1', '4.12.40'], channel: 'stable-4.12' });
    expect(rb.steps.map((s) => s.kind)).toEqual(['preflight', 'channel', 'update', 'verify']);
    expect(rb.pausesWorkers).toBe(false);
  });

  it('adds --allow-not-recommended and the risks for conditional hops', () => {
    const rb = buildRunbook({
      path: ['4.12.37', '4.12.43'],
      risks: [
        {
          from: '4.12.37',
          to: '4.12.43',
          risks: [{ name: 'OVNKubeMasterDSPrestop', message: 'm', url: 'https://issues.redhat.com/browse/SDN-4196' }],
        },
      ],
    });
    const update = rb.steps.find((s) => s.kind === 'update');
    expect(update?.commands[0]).toBe('oc adm upgrade --to=4.12.43 --allow-not-recommended');
    expect(update?.detail).toContain('OVNKubeMasterDSPrestop');
  });

  it('lets the workers catch up before a hop that would break the kubelet skew', () => {
    const rb = buildRunbook({ path: ['4.6.1', '4.7.1', '4.8.1', '4.9.1'], pools: ['worker', 'infra'] });
    const kinds = rb.steps.map((s) => s.kind);
    expect(kinds).toEqual(['preflight', 'pause', 'update', 'update', 'catch-up', 'admin-ack', 'update', 'unpause', 'verify']);
    expect(rb.steps[1]?.commands).toHaveLength(2);
  });
});

import { describe, expect, it } from 'vitest';
import { createFakeProvider } from './fake-provider';
import { inProcess } from './in-process';

describe('inProcess', () => {
  it("returns the step's result as a promise", async () => {
    await expect(inProcess(() => 42)).resolves.toBe(42);
  });

  it('turns a throw into a rejection instead of throwing at the call', async () => {
    let call: Promise<never> | undefined;
    expect(() => {
      call = inProcess(() => {
        throw new Error('cluster API down');
      });
    }).not.toThrow();
    await expect(call).rejects.toThrow('cluster API down');
  });

  it('keeps a failing fake provider call a rejected promise, as a remote provider fails', async () => {
    const provider = createFakeProvider({ clusters: [], failWith: (op) => new Error(`${op} refused`) });
    const results = await Promise.allSettled([
      provider.observe(new Date(0)),
      provider.cancelUpgrade({ externalId: 'x', name: 'x', version: '4.12.1', idempotencyKey: 'k' }, new Date(0)),
    ]);
    expect(results.map((r) => (r.status === 'rejected' ? String(r.reason) : r.status))).toEqual([
      'Error: list refused',
      'Error: cancel refused',
    ]);
  });
});

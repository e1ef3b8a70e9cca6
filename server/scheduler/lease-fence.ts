// The scheduler's fence: only the replica holding the lease, in the tenure it took it (the fencing
// token), acts on the fleet. Checked in the database before every provider write and inside the
// transaction that records an action, so a replica that lost the lease mid-tick (paused, cut off,
// overtaken by a standby after the TTL) stops before acting, and its records do not commit.
//
// Why "at least half the TTL left": a check is a read, and the provider call comes after it. The
// standby can only take the lease once it expired, so a write checked with half the TTL still to
// run has that long to be sent before anyone else could act; with less left the fence renews first.
import type { Db } from '@/db/open-database';
import type { FleetProvider } from '@/server/integrations/providers/types';
import { leaseValidUntil, renewLease, type HeldLease } from '@/server/repositories/scheduler-repository';

/** The lease was lost mid-tick: the whole tick stops (its new holder goes on). */
export class LeaseLostError extends Error {
  constructor(lease: HeldLease) {
    super(`lost the scheduler lease (${lease.holder}, fencing token ${lease.fencingToken}); its new holder goes on`);
    this.name = 'LeaseLostError';
  }
}

export interface LeaseFence {
  readonly lease: HeldLease;
  /**
   * Throws LeaseLostError unless the lease is still ours, in this tenure, with at least half its
   * TTL left (renewing it when less is left). `db` may be a transaction's handle: the check is then
   * part of it.
   */
  assertHeld(db: Db): Promise<void>;
  /** extends the lease by a TTL from now, while it is ours (false once lost) */
  renew(db: Db): Promise<boolean>;
}

export function createLeaseFence(lease: HeldLease, opts: { ttlMs: number; realNow: () => Date }): LeaseFence {
  const { ttlMs, realNow } = opts;
  return {
    lease,
    async assertHeld(db) {
      const nowMs = realNow().getTime();
      const until = await leaseValidUntil(db, lease, nowMs);
      if (until === null) throw new LeaseLostError(lease);
      if (until - nowMs < ttlMs / 2 && !(await renewLease(db, lease, nowMs, ttlMs))) throw new LeaseLostError(lease);
    },
    renew(db) {
      return renewLease(db, lease, realNow().getTime(), ttlMs);
    },
  };
}

/** The provider methods that write to the fleet: each goes through the fence. */
const PROVIDER_WRITES = [
  'startUpgrade',
  'cancelUpgrade',
  'acknowledgeVersionGate',
  'approveInstallPlan',
  'setChannel',
  'setMachineConfigPoolPaused',
  'acknowledgeAdminGate',
] as const satisfies readonly (keyof FleetProvider)[];
/** and the ones that only read (a member in neither list does not compile: see below) */
const _PROVIDER_READS = ['observe', 'probe', 'observeCluster', 'listInstallPlans'] as const satisfies readonly (keyof FleetProvider)[];
type ProviderMethod = {
  [K in keyof FleetProvider]-?: NonNullable<FleetProvider[K]> extends (...args: never[]) => unknown ? K : never;
}[keyof FleetProvider];
// a new provider method must be sorted into writes or reads before this compiles
const everyMethodSorted: Record<Exclude<ProviderMethod, (typeof PROVIDER_WRITES)[number] | (typeof _PROVIDER_READS)[number]>, never> = {};
void everyMethodSorted;

const WRITES: ReadonlySet<PropertyKey> = new Set(PROVIDER_WRITES);

/** `provider` with every write checked by `fence` on `db` first; reads pass straight through. */
export function fenceProviderWrites(provider: FleetProvider, fence: LeaseFence, db: Db): FleetProvider {
  return new Proxy(provider, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      if (!WRITES.has(prop)) return method.bind(target);
      return async (...args: unknown[]) => {
        await fence.assertHeld(db);
        return await method.apply(target, args);
      };
    },
  });
}

// What a load balancer and an operator ask each replica (GET /api/readyz): can it serve (its
// database answers), and does it lead (hold the scheduler lease, so it is the one acting on the
// fleet)? Every replica serves pages and the API; only the leader ticks.
import type { Db } from '@/db/open-database';
import { isPostgresHandle } from '@/db/postgres-handle';
import { getLease, SCHEDULER_LEASE_NAME } from '@/server/repositories/scheduler-repository';

export type Readiness =
  | { ready: false; replica: string; database: 'unreachable' }
  | {
      ready: true;
      replica: string;
      database: 'sqlite' | 'postgres';
      /** whether this replica holds the scheduler lease now */
      leads: boolean;
      /** the lease's holder while it is valid (this replica or another), else null: a standby takes over at its next tick */
      leader: { holder: string; until: string } | null;
      /** FLEETPLAN_SCHEDULER: a replica with the scheduler off never leads */
      scheduler: 'on' | 'off';
    };

export async function checkReadiness(db: Db, opts: { replica: string; schedulerEnabled: boolean; nowMs: number }): Promise<Readiness> {
  try {
    // reading the lease is the check that the database answers
    const lease = await getLease(db, SCHEDULER_LEASE_NAME);
    const valid = lease !== undefined && lease.expiresAt.getTime() > opts.nowMs;
    return {
      ready: true,
      replica: opts.replica,
      database: isPostgresHandle(db) ? 'postgres' : 'sqlite',
      leads: valid && lease.holder === opts.replica,
      leader: valid ? { holder: lease.holder, until: lease.expiresAt.toISOString() } : null,
      scheduler: opts.schedulerEnabled ? 'on' : 'off',
    };
  } catch (err) {
    console.error('readyz: database check failed', err);
    return { ready: false, replica: opts.replica, database: 'unreachable' };
  }
}

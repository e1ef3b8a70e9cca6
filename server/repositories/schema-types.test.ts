// The enum-like columns are typed in db/schema.ts; these checks (run by tsc and vitest) keep each
// column's vocabulary equal to the type the code above the repositories uses for it.
import { describe, expectTypeOf, it } from 'vitest';
import type { LifecycleStateValue, RoleValue } from '@/db/schema';
import type { LifecycleState } from '@/server/domain/lifecycle/machine';
import type { Role } from '@/server/auth/actor';
import type { ClusterRow } from './cluster-repository';
import type { TickRow } from './scheduler-repository';

describe('typed enum columns', () => {
  it('users.role and api_tokens.scope hold exactly the roles', () => {
    expectTypeOf<RoleValue>().toEqualTypeOf<Role>();
  });

  it('upgrade_lifecycles.state holds exactly the lifecycle states', () => {
    expectTypeOf<LifecycleStateValue>().toEqualTypeOf<LifecycleState>();
  });

  it('rows read through repositories carry the narrowed types, not string', () => {
    expectTypeOf<ClusterRow['upgradeState']>().toEqualTypeOf<'idle' | 'scheduled' | 'upgrading' | 'failed'>();
    expectTypeOf<TickRow['status']>().toEqualTypeOf<'running' | 'succeeded' | 'failed'>();
  });
});

// The enum-like columns are typed in db/schema.ts; these checks (run by tsc and vitest) keep each
// column's vocabulary equal to the type the code above the repositories uses for it.
import { describe, expectTypeOf, it } from 'vitest';
import type {
  ClusterProviderValue,
  DecisionActionValue,
  LifecycleStateValue,
  OperatorApprovalsValue,
  EusProcedureValue,
  RoleValue,
  WebhookEventValue,
} from '@/db/schema';
import type { OperatorApprovalsProgress } from '@/server/domain/lifecycle/operator-approvals';
import type { EusProcedureProgress } from '@/server/domain/lifecycle/eus-procedure';
import type { LifecycleState } from '@/server/domain/lifecycle/machine';
import type { Role } from '@/server/auth/actor';
import type { DecisionAction } from '@/server/domain/plan/types';
import type { DecisionRecord } from '@/server/domain/scheduling/tick-decisions';
import type { ProviderName } from '@/server/env';
import type { UpgradeEvent } from '@/lib/upgrade-events';
import type { WEBHOOK_EVENTS } from '@/server/services/webhook-service';
import type { ClusterRow } from './cluster-repository';
import type { countDecisionsByReason, listDecisions, StoredClusterState } from './decision-repository';
import type { TickRow } from './scheduler-repository';
import type { DeliveryRow } from './webhook-repository';

describe('typed enum columns', () => {
  it('users.role and api_tokens.scope hold exactly the roles', () => {
    expectTypeOf<RoleValue>().toEqualTypeOf<Role>();
  });

  it('upgrade_lifecycles.state holds exactly the lifecycle states', () => {
    expectTypeOf<LifecycleStateValue>().toEqualTypeOf<LifecycleState>();
  });

  it('upgrade_lifecycles.operator_approvals holds the operator-approvals phase record', () => {
    expectTypeOf<OperatorApprovalsValue>().toEqualTypeOf<OperatorApprovalsProgress>();
  });

  it('upgrade_lifecycles.eus_procedure holds the EUS-to-EUS procedure record', () => {
    expectTypeOf<EusProcedureValue>().toEqualTypeOf<EusProcedureProgress>();
  });

  it("decisions.action and clusters.last_decision_action hold exactly the engine's actions", () => {
    expectTypeOf<DecisionActionValue>().toEqualTypeOf<DecisionAction>();
    expectTypeOf<DecisionRecord['action']>().toEqualTypeOf<DecisionAction>();
  });

  it('clusters.provider holds the configurable providers and the test fleet’s fake one', () => {
    expectTypeOf<ClusterProviderValue>().toEqualTypeOf<ProviderName | 'fake'>();
  });

  it('webhook_deliveries.event holds exactly the lifecycle events a tick sends; a webhook subscribes to some of them', () => {
    expectTypeOf<WebhookEventValue>().toEqualTypeOf<UpgradeEvent>();
    expectTypeOf<(typeof WEBHOOK_EVENTS)[number]>().toEqualTypeOf<WebhookEventValue>();
  });

  it('rows read through repositories carry the narrowed types, not string', () => {
    expectTypeOf<ClusterRow['upgradeState']>().toEqualTypeOf<'idle' | 'scheduled' | 'upgrading' | 'failed' | 'gone'>();
    expectTypeOf<TickRow['status']>().toEqualTypeOf<'running' | 'succeeded' | 'failed'>();
    expectTypeOf<ClusterRow['provider']>().toEqualTypeOf<ClusterProviderValue>();
    expectTypeOf<ClusterRow['lastDecisionAction']>().toEqualTypeOf<DecisionAction | null>();
    expectTypeOf<StoredClusterState['lastDecisionAction']>().toEqualTypeOf<DecisionAction | null>();
    expectTypeOf<Awaited<ReturnType<typeof listDecisions>>['rows'][number]['action']>().toEqualTypeOf<DecisionAction>();
    expectTypeOf<Awaited<ReturnType<typeof countDecisionsByReason>>[number]['action']>().toEqualTypeOf<DecisionAction>();
    expectTypeOf<DeliveryRow['event']>().toEqualTypeOf<WebhookEventValue>();
  });
});

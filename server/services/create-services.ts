// The service graph, built once per request (or per tick) from the database and a clock.
import type { Db } from '@/db/open-database';
import type { FleetplanEnv } from '@/server/env';
import { createAuthService } from './auth-service';
import { createClusterService } from './cluster-service';
import { createTokenService } from './token-service';
import { createUserService } from './user-service';
import { createClusterExplainService } from './cluster-explain-service';
import { createFleetService } from './fleet-service';
import { createPlanService } from './plan-service';
import { createPolicyService } from './policies/policy-service';
import { createVersionService } from './version-service';
import { createSectorService } from './sector-service';
import { createSoakService } from './soak-service';
import { createForecastService } from './forecast-service';
import { createSchedulerService } from './scheduler-service';
import { NO_SCHEDULER, type SchedulerControl } from './scheduler-control';
import { createExclusionService } from './exclusion-service';
import { createLifecycleService } from './lifecycle-service';
import { createWebhookService } from './webhook-service';
import { createHookService } from './hooks/hook-service';
import { createActivityService } from './activity-service';
import { createGraphService } from './graph-service';
import { createGraphRefreshService } from './graph-refresh-service';
import { createSetupService } from './setup-service';
import { createVersionGateService } from './version-gate-service';
import { createApprovalService } from './approval-service';
import { createProvider } from '@/server/integrations/providers/create-provider';
import type { FleetProvider } from '@/server/integrations/providers/types';

/**
 * Two clocks. `fleetNow` is the fleet's time: real time, or the simulator's clock, which runs
 * faster and which an operator can move (scheduler.advanceClock); only fleet decisions (schedules,
 * soak, exclusions, forecasts) read it. `realNow` is the wall clock: audit rows, sessions, API
 * tokens, sign-in throttling and the scheduler lease use it, so moving the simulated clock can
 * neither back-date the audit trail nor expire or extend a credential.
 */
export interface ServiceDeps {
  db: Db;
  fleetNow: () => Date;
  realNow: () => Date;
  /** the checked settings (server/env.ts) */
  env: FleetplanEnv;
  /** the process's scheduler loop; without one, "run now" is refused (CLI, benchmarks) */
  scheduler?: SchedulerControl;
  /** the provider for an operator's write there (a version gate agreement); built when needed, the configured one by default */
  provider?: () => Promise<FleetProvider>;
}

export function createServices(deps: ServiceDeps) {
  return {
    auth: createAuthService(deps),
    users: createUserService(deps),
    tokens: createTokenService(deps),
    clusters: createClusterService(deps.db, deps.fleetNow),
    clusterExplain: createClusterExplainService(deps.db, deps.fleetNow),
    fleet: createFleetService(deps.db, deps.fleetNow, deps.env.provider.name),
    policies: createPolicyService(deps.db, deps.fleetNow, deps.realNow),
    plans: createPlanService(deps.db, deps.fleetNow),
    versions: createVersionService(deps.db),
    sectors: createSectorService(deps.db, deps.fleetNow),
    soak: createSoakService(deps.db, deps.fleetNow),
    forecast: createForecastService(deps.db, deps.fleetNow),
    scheduler: createSchedulerService(deps.db, deps.realNow, deps.env, deps.scheduler ?? NO_SCHEDULER),
    exclusions: createExclusionService(deps.db, deps.fleetNow, deps.realNow),
    lifecycle: createLifecycleService(deps.db, deps.realNow),
    webhooks: createWebhookService(deps.db, deps.realNow, deps.env),
    hooks: createHookService(deps.db, deps.realNow, deps.env),
    activity: createActivityService(deps.db),
    graphs: createGraphService(deps.db, deps.realNow),
    graphRefresh: createGraphRefreshService({ db: deps.db, realNow: deps.realNow, settings: deps.env.updateService }),
    setup: createSetupService(deps),
    approvals: createApprovalService(deps.db, deps.realNow),
    versionGates: createVersionGateService({
      db: deps.db,
      realNow: deps.realNow,
      provider: deps.provider ?? (() => createProvider(deps.db, deps.env.provider)),
    }),
  };
}

export type Services = ReturnType<typeof createServices>;

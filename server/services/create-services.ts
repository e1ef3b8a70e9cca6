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
import { createForecastService, type ForecastOffload } from './forecast-service';
import { createSchedulerService } from './scheduler-service';
import { NO_SCHEDULER, type SchedulerControl } from './scheduler-control';
import { createExclusionService } from './exclusion-service';
import { createLabelService } from './label-service';
import { createLifecycleService } from './lifecycle-service';
import { createWebhookService } from './webhook-service';
import { createHookService } from './hooks/hook-service';
import { createActivityService } from './activity-service';
import { createGraphService } from './graph-service';
import { createGraphRefreshService } from './graph-refresh-service';
import { createSetupService } from './setup-service';
import { createOrganizationService } from './organization-service';
import { createOrganizationRoleService } from './organization-roles';
import { createInstanceBlockedVersionService } from './instance-blocked-version-service';
import { createVersionGateService } from './version-gate-service';
import { createApprovalService } from './approval-service';
import { providerOfOrganization } from '@/server/integrations/providers/create-provider';
import { findFirstOrganization } from '@/server/repositories/organization-repository';
import type { FleetProvider } from '@/server/integrations/providers/types';
import { organizationScope, type OrganizationScope } from './organization-scope';

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
  /** the organization the request works on (server/services/organization-scope.ts); the user's or the first by default */
  organization?: OrganizationScope;
  /** the server's forecast thread; without one, forecasts run in this thread */
  forecastOffload?: ForecastOffload;
}

export function createServices(deps: ServiceDeps) {
  const org = deps.organization ?? organizationScope(deps.db);
  return {
    auth: createAuthService({ ...deps, organization: org }),
    users: createUserService(deps),
    tokens: createTokenService(deps),
    clusters: createClusterService(deps.db, deps.fleetNow, org),
    clusterExplain: createClusterExplainService(deps.db, deps.fleetNow, org),
    fleet: createFleetService(deps.db, deps.fleetNow, deps.env.provider.name, org),
    policies: createPolicyService(deps.db, deps.fleetNow, deps.realNow, org, deps.forecastOffload),
    plans: createPlanService(deps.db, deps.fleetNow, org),
    versions: createVersionService(deps.db, org),
    sectors: createSectorService(deps.db, deps.fleetNow, org),
    soak: createSoakService(deps.db, deps.fleetNow, org),
    forecast: createForecastService(deps.db, deps.fleetNow, org, {
      offload: deps.forecastOffload,
      realNowMs: () => deps.realNow().getTime(),
    }),
    scheduler: createSchedulerService(deps.db, deps.realNow, deps.env, deps.scheduler ?? NO_SCHEDULER),
    exclusions: createExclusionService(deps.db, deps.fleetNow, deps.realNow, org),
    labels: createLabelService(deps.db, deps.realNow, org),
    lifecycle: createLifecycleService(deps.db, deps.realNow, org),
    webhooks: createWebhookService(deps.db, deps.realNow, deps.env, org),
    hooks: createHookService(deps.db, deps.realNow, deps.env, org),
    activity: createActivityService(deps.db, org),
    graphs: createGraphService(deps.db, deps.realNow, org),
    graphRefresh: createGraphRefreshService({ db: deps.db, realNow: deps.realNow, settings: deps.env.updateService }),
    instanceBlockedVersions: createInstanceBlockedVersionService(deps.db, deps.realNow),
    organizationRoles: createOrganizationRoleService(deps.db, deps.realNow),
    organizations: createOrganizationService(deps.db, deps.realNow, org),
    setup: createSetupService({ ...deps, organization: org }),
    approvals: createApprovalService(deps.db, deps.realNow, org),
    versionGates: createVersionGateService({
      db: deps.db,
      realNow: deps.realNow,
      // the organization's own provider (or the instance's for the first): where its clusters live
      provider:
        deps.provider ??
        (async () => providerOfOrganization(deps.db, await org(), (await findFirstOrganization(deps.db))?.id, deps.env.provider)),
      organization: org,
    }),
  };
}

export type Services = ReturnType<typeof createServices>;

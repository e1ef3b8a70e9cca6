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
import { createExclusionService } from './exclusion-service';
import { createWebhookService } from './webhook-service';
import { createActivityService } from './activity-service';
import { createGraphService } from './graph-service';

export interface ServiceDeps {
  db: Db;
  /** the fleet's "now": real time, or the simulator's clock */
  now: () => Date;
  /** the checked settings (server/env.ts) */
  env: FleetplanEnv;
}

export function createServices(deps: ServiceDeps) {
  return {
    auth: createAuthService(deps),
    users: createUserService(deps),
    tokens: createTokenService(deps),
    clusters: createClusterService(deps.db),
    clusterExplain: createClusterExplainService(deps.db, deps.now),
    fleet: createFleetService(deps.db, deps.now, deps.env.provider.name),
    policies: createPolicyService(deps.db, deps.now),
    plans: createPlanService(deps.db, deps.now),
    versions: createVersionService(deps.db),
    sectors: createSectorService(deps.db),
    soak: createSoakService(deps.db, deps.now),
    forecast: createForecastService(deps.db, deps.now),
    scheduler: createSchedulerService(deps.db, deps.now, deps.env),
    exclusions: createExclusionService(deps.db, deps.now),
    webhooks: createWebhookService(deps.db, deps.now, deps.env),
    activity: createActivityService(deps.db),
    graphs: createGraphService(deps.db, deps.now),
  };
}

export type Services = ReturnType<typeof createServices>;

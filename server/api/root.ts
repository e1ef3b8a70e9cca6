// The app router: one key per area. Add routers here.
import { createCallerFactory, createTRPCRouter } from './trpc';
import { authRouter } from './routers/auth';
import { clustersRouter } from './routers/clusters';
import { tokensRouter } from './routers/tokens';
import { usersRouter } from './routers/users';
import { fleetRouter } from './routers/fleet';
import { plansRouter } from './routers/plans';
import { policiesRouter } from './routers/policies';
import { versionsRouter } from './routers/versions';
import { sectorsRouter } from './routers/sectors';
import { soakRouter } from './routers/soak';
import { forecastRouter } from './routers/forecast';
import { schedulerRouter } from './routers/scheduler';
import { exclusionsRouter } from './routers/exclusions';
import { lifecycleRouter } from './routers/lifecycle';
import { webhooksRouter } from './routers/webhooks';
import { hooksRouter } from './routers/hooks';
import { activityRouter } from './routers/activity';
import { graphsRouter } from './routers/graphs';
import { setupRouter } from './routers/setup';
import { approvalsRouter } from './routers/approvals';
import { organizationsRouter } from './routers/organizations';
import { instanceRouter } from './routers/instance';

export const appRouter = createTRPCRouter({
  auth: authRouter,
  users: usersRouter,
  tokens: tokensRouter,
  clusters: clustersRouter,
  fleet: fleetRouter,
  policies: policiesRouter,
  plans: plansRouter,
  versions: versionsRouter,
  sectors: sectorsRouter,
  soak: soakRouter,
  forecast: forecastRouter,
  scheduler: schedulerRouter,
  exclusions: exclusionsRouter,
  lifecycle: lifecycleRouter,
  webhooks: webhooksRouter,
  hooks: hooksRouter,
  activity: activityRouter,
  graphs: graphsRouter,
  setup: setupRouter,
  approvals: approvalsRouter,
  organizations: organizationsRouter,
  instance: instanceRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);

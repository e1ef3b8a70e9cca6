// The app router: one key per area. Add routers here.
import { createCallerFactory, createTRPCRouter } from './trpc';
import { authRouter } from './routers/auth';
import { clustersRouter } from './routers/clusters';
import { tokensRouter } from './routers/tokens';
import { usersRouter } from './routers/users';
import { fleetRouter } from './routers/fleet';
import { versionsRouter } from './routers/versions';
import { sectorsRouter } from './routers/sectors';
import { soakRouter } from './routers/soak';
import { forecastRouter } from './routers/forecast';

export const appRouter = createTRPCRouter({
  auth: authRouter,
  users: usersRouter,
  tokens: tokensRouter,
  clusters: clustersRouter,
  fleet: fleetRouter,
  versions: versionsRouter,
  sectors: sectorsRouter,
  soak: soakRouter,
  forecast: forecastRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);

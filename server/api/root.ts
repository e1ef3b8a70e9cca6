// The app router: one key per area. Add routers here.
import { createCallerFactory, createTRPCRouter } from './trpc';
import { clustersRouter } from './routers/clusters';
import { fleetRouter } from './routers/fleet';
import { versionsRouter } from './routers/versions';

export const appRouter = createTRPCRouter({
  clusters: clustersRouter,
  fleet: fleetRouter,
  versions: versionsRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);

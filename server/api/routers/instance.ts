// Settings of the whole instance (every organization): its blocked versions.
import { z } from 'zod';
import { adminProcedure, createTRPCRouter, viewerProcedure } from '../trpc';

const pattern = z.string().min(1).max(500);

export const instanceRouter = createTRPCRouter({
  blockedVersions: viewerProcedure.query(({ ctx }) => ctx.services.instanceBlockedVersions.list()),
  addBlockedVersion: adminProcedure
    .input(z.object({ pattern, reason: z.string().max(1000) }))
    .mutation(({ ctx, input }) => ctx.services.instanceBlockedVersions.add(ctx.actor.name, input)),
  removeBlockedVersion: adminProcedure
    .input(z.object({ pattern }))
    .mutation(({ ctx, input }) => ctx.services.instanceBlockedVersions.remove(ctx.actor.name, input)),
});

// Settings of the whole instance (every organization): its blocked versions.
import { z } from 'zod';
import { instanceAdminProcedure, createTRPCRouter, instanceViewerProcedure } from '../trpc';

const pattern = z.string().min(1).max(500);

export const instanceRouter = createTRPCRouter({
  blockedVersions: instanceViewerProcedure.query(async ({ ctx }) => await ctx.services.instanceBlockedVersions.list()),
  addBlockedVersion: instanceAdminProcedure
    .input(z.object({ pattern, reason: z.string().max(1000) }))
    .mutation(async ({ ctx, input }) => await ctx.services.instanceBlockedVersions.add(ctx.actor.name, input)),
  removeBlockedVersion: instanceAdminProcedure
    .input(z.object({ pattern }))
    .mutation(async ({ ctx, input }) => await ctx.services.instanceBlockedVersions.remove(ctx.actor.name, input)),
});

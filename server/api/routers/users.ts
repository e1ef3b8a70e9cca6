// Local user administration (admin only).
import { z } from 'zod';
import { ROLES } from '@/server/auth/actor';
import { MAX_PASSWORD_LENGTH } from '@/server/auth/password';
import { instanceAdminProcedure, createTRPCRouter } from '../trpc';

const username = z.string().min(1).max(64);
const newUsername = z
  .string()
  .min(2)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9._-]*$/, 'lowercase letters, digits, dot, dash and underscore; starts with a letter or digit');
// length after trimming, common passwords and the like: server/auth/password-policy.ts (in the service)
const password = z.string().min(1).max(MAX_PASSWORD_LENGTH);

export const ZCreateUserInput = z.object({ username: newUsername, password, role: z.enum(ROLES) });

export const usersRouter = createTRPCRouter({
  list: instanceAdminProcedure.query(async ({ ctx }) => await ctx.services.users.list()),
  create: instanceAdminProcedure
    .input(ZCreateUserInput)
    .mutation(({ ctx, input }) => ctx.services.users.create({ ...input, actor: ctx.actor })),
  setRole: instanceAdminProcedure
    .input(z.object({ username, role: z.enum(ROLES) }))
    .mutation(async ({ ctx, input }) => await ctx.services.users.setRole({ ...input, actor: ctx.actor })),
  setDisabled: instanceAdminProcedure
    .input(z.object({ username, disabled: z.boolean() }))
    .mutation(async ({ ctx, input }) => await ctx.services.users.setDisabled({ ...input, actor: ctx.actor })),
  resetPassword: instanceAdminProcedure
    .input(z.object({ username, password: password.optional() }))
    .mutation(({ ctx, input }) => ctx.services.users.resetPassword({ ...input, actor: ctx.actor })),
  /** roles granted on single organizations (they replace the global role there) */
  organizationRoles: instanceAdminProcedure.query(async ({ ctx }) => await ctx.services.organizationRoles.list()),
  grantOrganizationRole: instanceAdminProcedure
    .input(z.object({ username, organization: z.string().min(1).max(100), role: z.enum(ROLES) }))
    .mutation(async ({ ctx, input }) => await ctx.services.organizationRoles.grant(ctx.actor, input)),
  revokeOrganizationRole: instanceAdminProcedure
    .input(z.object({ username, organization: z.string().min(1).max(100) }))
    .mutation(async ({ ctx, input }) => await ctx.services.organizationRoles.revoke(ctx.actor, input)),
  /** each organization's OIDC group → role mapping (grants recomputed at each OIDC sign-in) */
  organizationRoleGroups: instanceAdminProcedure.query(async ({ ctx }) => await ctx.services.organizationRoles.listRoleGroups()),
  /** sets an organization's mapping (`admin=a;viewer=*`, checked like FLEETPLAN_OIDC_ROLE_GROUPS); null or blank clears it */
  setOrganizationRoleGroups: instanceAdminProcedure
    .input(z.object({ organization: z.string().min(1).max(100), mapping: z.string().max(2000).nullable() }))
    .mutation(async ({ ctx, input }) => await ctx.services.organizationRoles.setRoleGroups(ctx.actor, input)),
});

// Local user administration (admin only).
import { z } from 'zod';
import { ROLES } from '@/server/auth/actor';
import { MAX_PASSWORD_LENGTH } from '@/server/auth/password';
import { adminProcedure, createTRPCRouter } from '../trpc';

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
  list: adminProcedure.query(({ ctx }) => ctx.services.users.list()),
  create: adminProcedure.input(ZCreateUserInput).mutation(({ ctx, input }) => ctx.services.users.create({ ...input, actor: ctx.actor })),
  setRole: adminProcedure
    .input(z.object({ username, role: z.enum(ROLES) }))
    .mutation(({ ctx, input }) => ctx.services.users.setRole({ ...input, actor: ctx.actor })),
  setDisabled: adminProcedure
    .input(z.object({ username, disabled: z.boolean() }))
    .mutation(({ ctx, input }) => ctx.services.users.setDisabled({ ...input, actor: ctx.actor })),
  resetPassword: adminProcedure
    .input(z.object({ username, password: password.optional() }))
    .mutation(({ ctx, input }) => ctx.services.users.resetPassword({ ...input, actor: ctx.actor })),
});

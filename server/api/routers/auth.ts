// Sign-in procedures: the only public ones besides health. Public mutations still refuse a
// foreign Origin (and, with a session, a missing CSRF token): login CSRF and forced logout.
import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import type { CookieJar } from '@/server/services/auth-service';
import { MAX_PASSWORD_LENGTH } from '@/server/auth/password';
import { createTRPCRouter, publicProcedure, instanceViewerProcedure, type ContextInner } from '../trpc';

export const ZLoginInput = z.object({
  username: z.string().min(1).max(64),
  password: z.string().min(1).max(MAX_PASSWORD_LENGTH),
});

function cookieJarOf(ctx: ContextInner): CookieJar {
  return { secure: ctx.secureCookies ?? false, set: (cookie) => ctx.resHeaders?.append('set-cookie', cookie) };
}

const sameSiteProcedure = publicProcedure.use(({ ctx, next }) => {
  if (ctx.csrfOk === false) throw new TRPCError({ code: 'FORBIDDEN', message: 'Missing or wrong CSRF token' });
  return next();
});

export const authRouter = createTRPCRouter({
  me: publicProcedure.query(async ({ ctx }) => await ctx.services.auth.me(ctx.actor)),
  loginOptions: publicProcedure.query(async ({ ctx }) => await ctx.services.auth.loginOptions()),
  login: sameSiteProcedure.input(ZLoginInput).mutation(({ ctx, input }) =>
    ctx.services.auth.login({
      ...input,
      cookies: cookieJarOf(ctx),
      clientAddress: ctx.clientAddress ?? 'unknown',
      retryAfter: (seconds) => ctx.resHeaders?.set('retry-after', String(seconds)),
    }),
  ),
  /** the one procedure a user who must change their password may call (server/api/trpc.ts) */
  changePassword: instanceViewerProcedure
    .input(
      z.object({ currentPassword: z.string().min(1).max(MAX_PASSWORD_LENGTH), newPassword: z.string().min(1).max(MAX_PASSWORD_LENGTH) }),
    )
    .mutation(({ ctx, input }) => ctx.services.auth.changePassword({ ...input, actor: ctx.actor, cookies: cookieJarOf(ctx) })),
  demoLogin: sameSiteProcedure.mutation(async ({ ctx }) => await ctx.services.auth.demoLogin({ cookies: cookieJarOf(ctx) })),
  logout: sameSiteProcedure.mutation(async ({ ctx }) => await ctx.services.auth.logout({ actor: ctx.actor, cookies: cookieJarOf(ctx) })),
});

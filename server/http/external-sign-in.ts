// The two HTTP legs of a sign-in at an external identity provider (OIDC), shared by the route
// handlers under app/api/auth/[provider]/: start (redirect to the provider with a sealed flow
// cookie) and callback (verify, start a session, go where the user was going). A failure goes back
// to the login page with the reason in `?error=`; it never leaves a session behind.
import { getDb } from '@/db/client';
import { createRequestContext } from '@/server/api/trpc';
import { parseCookieHeader } from '@/server/auth/cookies';
import { resolveRequestActor } from '@/server/auth/resolve-request-actor';
import { AppError } from '@/server/services/app-error';
import { SIGN_IN_FLOW_COOKIE, signInFlowCookie } from '@/server/services/auth-service';

function redirect(location: string, cookies: string[] = []): Response {
  const headers = new Headers({ Location: location });
  for (const cookie of cookies) headers.append('Set-Cookie', cookie);
  return new Response(null, { status: 303, headers });
}

function toLogin(message: string, cookies: string[] = []): Response {
  return redirect(`/login?error=${encodeURIComponent(message.slice(0, 400))}`, cookies);
}

function messageOf(err: unknown): string {
  if (err instanceof AppError) return err.message;
  console.error('external sign-in failed', err);
  return 'The sign-in failed on the server; see its log';
}

/**
 * The origin the browser used (its Host header), for the redirect URI when FLEETPLAN_PUBLIC_URL
 * is not set: `next start` builds the request's URL from its own listening address instead. A
 * forged Host only hurts its sender: the provider accepts registered redirect URIs only.
 */
function browserOrigin(req: Request, secure: boolean): string {
  const host = req.headers.get('host');
  return host && /^[A-Za-z0-9.:[\]-]+$/.test(host) ? `${secure ? 'https' : 'http'}://${host}` : new URL(req.url).origin;
}

async function contextFor(req: Request) {
  const db = getDb();
  const identity = await resolveRequestActor(db, req);
  return { ctx: await createRequestContext({ db, req, identity }), secure: identity.secure };
}

export async function startExternalSignIn(req: Request, providerId: string): Promise<Response> {
  try {
    const { ctx, secure } = await contextFor(req);
    const url = new URL(req.url);
    const { location, cookie } = await ctx.services.auth.beginExternalSignIn({
      providerId,
      next: url.searchParams.get('next'),
      origin: browserOrigin(req, secure),
      secure,
    });
    return redirect(location.href, [cookie]);
  } catch (err) {
    return toLogin(messageOf(err));
  }
}

export async function completeExternalSignIn(req: Request, providerId: string): Promise<Response> {
  let secure = false;
  try {
    const context = await contextFor(req);
    secure = context.secure;
    const cookies: string[] = [];
    const { next } = await context.ctx.services.auth.completeExternalSignIn({
      providerId,
      callbackUrl: new URL(req.url),
      flowCookie: parseCookieHeader(req.headers.get('cookie')).get(SIGN_IN_FLOW_COOKIE),
      cookies: { secure, set: (c) => cookies.push(c) },
      clientAddress: context.ctx.clientAddress ?? 'unknown',
    });
    return redirect(next, [signInFlowCookie('', { secure, maxAgeSeconds: 0 }), ...cookies]);
  } catch (err) {
    return toLogin(messageOf(err), [signInFlowCookie('', { secure, maxAgeSeconds: 0 })]);
  }
}

// tRPC over HTTP (fetch adapter). Procedures live in server/api.
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { getDb } from '@/db/client';
import { appRouter } from '@/server/api/root';
import { createContextInner } from '@/server/api/trpc';
import { resolveRequestActor } from '@/server/auth/resolve-request-actor';
import { getFleetClock } from '@/server/fleet-clock';

export const dynamic = 'force-dynamic';

const MAX_BODY_BYTES = 2 * 1024 * 1024;

async function handler(req: Request) {
  const length = Number(req.headers.get('content-length') ?? 0);
  if (length > MAX_BODY_BYTES) {
    return Response.json({ error: { message: `Request body over ${MAX_BODY_BYTES} bytes` } }, { status: 413 });
  }
  const db = getDb();
  const identity = await resolveRequestActor(db, req);
  return fetchRequestHandler({
    endpoint: '/api/trpc',
    req,
    router: appRouter,
    allowMethodOverride: true,
    createContext: ({ resHeaders }) =>
      createContextInner({
        db,
        now: getFleetClock(db),
        actor: identity.actor,
        csrfOk: identity.csrfOk,
        secureCookies: identity.secure,
        resHeaders,
      }),
    onError({ error, path }) {
      if (error.code === 'INTERNAL_SERVER_ERROR') console.error(`tRPC ${path ?? '?'} failed:`, error.cause ?? error);
    },
  });
}

export { handler as GET, handler as POST };

// tRPC over HTTP (fetch adapter). Procedures live in server/api.
// The body is read here under the limit (bytes counted as they arrive, chunked or not) before
// tRPC parses anything; tRPC gets the request again with the buffered body.
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { getDb } from '@/db/client';
import { appRouter } from '@/server/api/root';
import { createContextInner } from '@/server/api/trpc';
import { resolveRequestActor } from '@/server/auth/resolve-request-actor';
import { getFleetClock } from '@/server/fleet-clock';
import { readLimitedBody, trpcPayloadTooLarge, withBufferedBody } from '@/server/http/read-limited-body';
import { withApiHeaders } from '@/server/http/security-headers';

export const dynamic = 'force-dynamic';

const MAX_TRPC_BODY_BYTES = 2 * 1024 * 1024;

async function handler(incoming: Request) {
  const body = await readLimitedBody(incoming, MAX_TRPC_BODY_BYTES);
  if (!body.ok) return trpcPayloadTooLarge(MAX_TRPC_BODY_BYTES);
  const req = withBufferedBody(incoming, body.bytes);
  const db = getDb();
  const identity = await resolveRequestActor(db, req);
  // internal errors are logged (with a reference) by the errorFormatter in server/api/trpc.ts
  return fetchRequestHandler({
    endpoint: '/api/trpc',
    req,
    router: appRouter,
    allowMethodOverride: true,
    createContext: ({ resHeaders }) =>
      createContextInner({
        db,
        fleetNow: getFleetClock(db),
        realNow: () => new Date(),
        actor: identity.actor,
        csrfOk: identity.csrfOk,
        secureCookies: identity.secure,
        resHeaders,
      }),
  });
}

const GET = withApiHeaders(handler);
const POST = GET;
export { GET, POST };

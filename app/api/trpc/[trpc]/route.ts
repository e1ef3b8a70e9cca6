// tRPC over HTTP (fetch adapter). Procedures live in server/api.
// The body is read here under the limit (bytes counted as they arrive, chunked or not) before
// tRPC parses anything; tRPC gets the request again with the buffered body.
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import { getDb } from '@/db/client';
import { appRouter } from '@/server/api/root';
import { scanJson } from '@/server/domain/bounded-parse';
import { createRequestContext } from '@/server/api/trpc';
import { resolveRequestActor } from '@/server/auth/resolve-request-actor';
import { readLimitedBody, trpcPayloadTooLarge, withBufferedBody } from '@/server/http/read-limited-body';
import { withApiHeaders } from '@/server/http/security-headers';

export const dynamic = 'force-dynamic';

const MAX_TRPC_BODY_BYTES = 2 * 1024 * 1024;
/**
 * Inputs nest a few levels (a batch, a policy draft: about 10), plus the extra keys a policy file
 * may carry back through an edit (at most DOCUMENT_LIMITS.maxDepth, 64 levels).
 */
const MAX_INPUT_DEPTH = 100;

function trpcBadRequest(message: string): Response {
  return Response.json(
    { error: { message, code: TRPC_ERROR_CODES_BY_KEY.BAD_REQUEST, data: { code: 'BAD_REQUEST', httpStatus: 400 } } },
    { status: 400 },
  );
}

async function handler(incoming: Request) {
  const body = await readLimitedBody(incoming, MAX_TRPC_BODY_BYTES);
  if (!body.ok) return trpcPayloadTooLarge(MAX_TRPC_BODY_BYTES);
  // no input nests deeply; JSON.parse would spend ~250 ms on 2 MB of '[[[[', even for anonymous callers
  // (the body's values are not counted here: 2 MB cannot hold enough of them to matter)
  const scan = scanJson(new TextDecoder().decode(body.bytes), MAX_INPUT_DEPTH, Number.POSITIVE_INFINITY);
  if (!scan.ok && scan.limit === 'depth') return trpcBadRequest(`The request body nests deeper than ${MAX_INPUT_DEPTH} levels`);
  const req = withBufferedBody(incoming, body.bytes);
  const db = getDb();
  const identity = await resolveRequestActor(db, req);
  // internal errors are logged (with a reference) by the errorFormatter in server/api/trpc.ts
  return fetchRequestHandler({
    endpoint: '/api/trpc',
    req,
    router: appRouter,
    allowMethodOverride: true,
    createContext: async ({ resHeaders }) => await createRequestContext({ db, req, identity, resHeaders }),
  });
}

const GET = withApiHeaders(handler);
const POST = GET;
export { GET, POST };

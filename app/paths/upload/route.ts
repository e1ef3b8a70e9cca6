// Graph upload from the Paths page. Real graph documents can exceed the 2 MB body limit of
// /api/trpc, so uploads come here (up to the graph size limit) and go through the same
// graphs.import procedure: same role check (operator), CSRF check, validation and audit.
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { getDb } from '@/db/client';
import { createCaller } from '@/server/api/root';
import { createContextInner } from '@/server/api/trpc';
import { resolveRequestActor } from '@/server/auth/resolve-request-actor';
import { getFleetClock } from '@/server/fleet-clock';
import { MAX_GRAPH_BYTES } from '@/server/services/graph-service';

export const dynamic = 'force-dynamic';

/** The document is sent as a JSON string: escaping can grow it, so allow some slack. */
const MAX_BODY_BYTES = Math.ceil(MAX_GRAPH_BYTES * 1.2) + 64 * 1024;

function errorResponse(status: number, message: string) {
  return Response.json({ error: { message } }, { status });
}

export async function POST(req: Request) {
  const length = Number(req.headers.get('content-length') ?? 0);
  if (length > MAX_BODY_BYTES)
    return errorResponse(413, `The upload is over the ${MAX_GRAPH_BYTES / 1048576} MB limit for a graph document`);
  let body: unknown;
  try {
    body = await req.json();
  } catch {
    return errorResponse(400, 'Expected a JSON body {fileName, text, ...}');
  }
  const db = getDb();
  const identity = await resolveRequestActor(db, req);
  const caller = createCaller(
    createContextInner({ db, now: getFleetClock(db), actor: identity.actor, csrfOk: identity.csrfOk, secureCookies: identity.secure }),
  );
  try {
    const graph = await caller.graphs.import(body as Parameters<typeof caller.graphs.import>[0]);
    return Response.json({ graph });
  } catch (err) {
    if (err instanceof TRPCError) {
      const zod = err.cause && 'issues' in err.cause ? (err.cause as { issues: { path: PropertyKey[]; message: string }[] }).issues : null;
      const message = zod ? zod.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ') : err.message;
      return errorResponse(getHTTPStatusCodeFromError(err), message);
    }
    throw err;
  }
}

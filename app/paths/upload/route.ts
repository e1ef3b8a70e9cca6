// Graph upload from the Paths page. Real graph documents can exceed the 2 MB body limit of
// /api/trpc, so uploads come here (up to the graph size limit) and go through the same
// graphs.import procedure: same role check (operator), CSRF check, validation and audit.
// Who is asking is checked before a byte of the body is read, so an anonymous caller cannot make
// the server buffer 24 MB. proxy.ts leaves this path alone: its body copy stops at 10 MB.
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { getDb } from '@/db/client';
import { parseJsonText, type ParseLimits } from '@/server/domain/bounded-parse';
import { createCaller } from '@/server/api/root';
import { createRequestContext, procedureRefusal } from '@/server/api/trpc';
import { resolveRequestActor } from '@/server/auth/resolve-request-actor';
import { internalErrorMessage, reportInternalError } from '@/server/http/internal-error';
import { formatMegabytes, payloadTooLarge, readLimitedBody } from '@/server/http/read-limited-body';
import { withApiHeaders } from '@/server/http/security-headers';
import { MAX_GRAPH_BYTES } from '@/lib/graph-document-limit';

export const dynamic = 'force-dynamic';

/** The document is sent as a JSON string: escaping can grow it, so allow some slack. */
const MAX_BODY_BYTES = Math.ceil(MAX_GRAPH_BYTES * 1.2) + 64 * 1024;
/** The body is a small flat object around one long string. */
const UPLOAD_BODY_LIMITS: ParseLimits = { maxBytes: MAX_BODY_BYTES, maxDepth: 4, maxNodes: 1000, maxAliases: 0, maxExpansion: 5 };
const OVER_LIMIT = `The upload is over the ${formatMegabytes(MAX_GRAPH_BYTES)} limit for a graph document`;

function errorResponse(status: number, message: string, extra: Record<string, unknown> = {}) {
  return Response.json({ error: { message, ...extra } }, { status });
}

/** a refusal before the body was read: the connection closes rather than take the rest of it */
function refuseUnread(status: number, message: string) {
  return Response.json({ error: { message } }, { status, headers: { connection: 'close' } });
}

function documentText(body: unknown): string | null {
  return typeof body === 'object' && body !== null && 'text' in body && typeof body.text === 'string' ? body.text : null;
}

export const POST = withApiHeaders(async (req: Request) => {
  const db = getDb();
  const identity = await resolveRequestActor(db, req);
  // the refusals graphs.import gives, before the body is read
  const refusal = procedureRefusal(identity.actor, 'operator', { path: 'graphs.import', mutation: true, csrfOk: identity.csrfOk });
  if (refusal) return refuseUnread(refusal.code === 'UNAUTHORIZED' ? 401 : 403, refusal.message);

  const read = await readLimitedBody(req, MAX_BODY_BYTES);
  if (!read.ok) return payloadTooLarge(OVER_LIMIT);
  // bounded: a body of 24 MB of '[' would otherwise keep JSON.parse busy for seconds
  const parsed = parseJsonText(new TextDecoder().decode(read.bytes), UPLOAD_BODY_LIMITS);
  if (!parsed.ok) return errorResponse(400, 'Expected a JSON body {fileName, text, ...}');
  const body = parsed.value;
  const text = documentText(body);
  if (text !== null && Buffer.byteLength(text, 'utf8') > MAX_GRAPH_BYTES) {
    return payloadTooLarge(`${OVER_LIMIT}: this one is ${formatMegabytes(Buffer.byteLength(text, 'utf8'))}`);
  }

  const caller = createCaller(await createRequestContext({ db, req, identity }));
  try {
    const graph = await caller.graphs.import(body as Parameters<typeof caller.graphs.import>[0]);
    return Response.json({ graph });
  } catch (err) {
    if (err instanceof TRPCError && err.code !== 'INTERNAL_SERVER_ERROR') {
      const zod = err.cause && 'issues' in err.cause ? (err.cause as { issues: { path: PropertyKey[]; message: string }[] }).issues : null;
      const message = zod ? zod.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ') : err.message;
      return errorResponse(getHTTPStatusCodeFromError(err), message);
    }
    const reference = reportInternalError(err instanceof TRPCError ? (err.cause ?? err) : err, 'graph upload');
    return errorResponse(500, internalErrorMessage(reference), { reference });
  }
});

// Request (and response) bodies read under a byte limit. `content-length` alone is not a limit: a chunked body
// has none and a client may lie, so the bytes are counted as they arrive and reading stops (the
// stream is cancelled) as soon as the limit is passed; nothing is parsed before that.
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';

export type LimitedBody = { ok: true; bytes: Uint8Array<ArrayBuffer> } | { ok: false };

/**
 * Reads the whole body of `req` (a Request, or a fetch Response) when it is at most `maxBytes`
 * long; `{ ok: false }` as soon as it is longer.
 */
export async function readLimitedBody(req: Pick<Request, 'headers' | 'body'>, maxBytes: number): Promise<LimitedBody> {
  const declared = req.headers.get('content-length');
  if (declared !== null && !(Number(declared) <= maxBytes)) {
    await req.body?.cancel().catch(() => {});
    return { ok: false };
  }
  if (!req.body) return { ok: true, bytes: new Uint8Array(0) };
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel('request body over the limit').catch(() => {});
      return { ok: false };
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { ok: true, bytes };
}

/** The same request with its body replaced by bytes already read (for handlers that read it again). */
export function withBufferedBody(req: Request, bytes: Uint8Array<ArrayBuffer>): Request {
  const headers = new Headers(req.headers);
  headers.delete('transfer-encoding');
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  if (hasBody) headers.set('content-length', String(bytes.byteLength));
  else headers.delete('content-length');
  return new Request(req.url, { method: req.method, headers, body: hasBody ? bytes : undefined, signal: req.signal });
}

export function formatMegabytes(bytes: number): string {
  return `${Math.round((bytes / 1048576) * 10) / 10} MB`;
}

/** 413 in the app's plain JSON error shape ({error: {message}}), as the upload and metrics routes answer. */
export function payloadTooLarge(message: string): Response {
  return Response.json({ error: { message } }, { status: 413, headers: { connection: 'close' } });
}

/** 413 shaped like a tRPC error, so the tRPC client shows the message (for single and batched calls alike). */
export function trpcPayloadTooLarge(maxBytes: number): Response {
  return Response.json(
    {
      error: {
        message: `The request body is over the ${formatMegabytes(maxBytes)} limit of the API`,
        code: TRPC_ERROR_CODES_BY_KEY.PAYLOAD_TOO_LARGE,
        data: { code: 'PAYLOAD_TOO_LARGE', httpStatus: 413 },
      },
    },
    { status: 413, headers: { connection: 'close' } },
  );
}

// Compression of the API's JSON answers. Next's request handler behind scripts/serve.mjs sends
// route handlers' answers as they are (no Content-Encoding), and the Fleet list, forecast pages
// and activity feeds are JSON that shrinks 5–10 times, so the tRPC route compresses its own
// answers: brotli when the client accepts it, else gzip. An answer that already names an
// encoding is left alone, so nothing is ever compressed twice.
import { promisify } from 'node:util';
import zlib from 'node:zlib';

/** Below this many bytes the headers cost more than compression saves. */
export const MIN_COMPRESSED_BYTES = 1024;

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

type Encoding = 'br' | 'gzip';

/** The encoding to answer with for an Accept-Encoding header (q=0 refuses one), or null. */
export function chooseEncoding(acceptEncoding: string | null): Encoding | null {
  if (!acceptEncoding) return null;
  const accepted = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (name) accepted.set(name, Number.isFinite(weight) ? weight : 0);
  }
  const weightOf = (name: Encoding) => accepted.get(name) ?? accepted.get('*') ?? 0;
  if (weightOf('br') > 0 && weightOf('br') >= weightOf('gzip')) return 'br';
  if (weightOf('gzip') > 0) return 'gzip';
  return null;
}

/** `res` compressed for `req` when it is JSON of at least MIN_COMPRESSED_BYTES and the client accepts br or gzip. */
export async function compressJsonResponse(req: Request, res: Response): Promise<Response> {
  const headers = new Headers(res.headers);
  headers.append('Vary', 'Accept-Encoding');
  const encoding = chooseEncoding(req.headers.get('accept-encoding'));
  const json = /^application\/json\b/i.test(res.headers.get('content-type') ?? '');
  if (!encoding || !json || res.headers.has('content-encoding') || res.body === null || req.method === 'HEAD')
    return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
  const body = Buffer.from(await res.arrayBuffer());
  if (body.length < MIN_COMPRESSED_BYTES) return new Response(body, { status: res.status, statusText: res.statusText, headers });
  // brotli at quality 4: about as fast as gzip's default and smaller; runs on libuv's pool, not the event loop
  const compressed =
    encoding === 'br'
      ? await brotli(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } })
      : await gzip(body);
  headers.set('Content-Encoding', encoding);
  headers.set('Content-Length', String(compressed.length));
  return new Response(new Uint8Array(compressed), { status: res.status, statusText: res.statusText, headers });
}

// Reads a channel's update graph from a Cincinnati-compatible endpoint: the public OpenShift
// Update Service (api.openshift.com/api/upgrades_info/v1/graph) or an OpenShift Update Service in
// a disconnected site. GET `<url>?channel=<channel>&arch=<arch>` with `Accept: application/json`
// answers the graph document `{nodes, edges, conditionalEdges}` the Paths page already imports.
import { MAX_GRAPH_BYTES } from '@/lib/graph-document-limit';

/** a slow update service must not hold a refresh for long */
const FETCH_TIMEOUT_MS = 30_000;

export class UpdateServiceError extends Error {}

export async function fetchChannelGraph(opts: { url: string; channel: string; arch: string; timeoutMs?: number }): Promise<string> {
  const url = new URL(opts.url);
  url.searchParams.set('channel', opts.channel);
  url.searchParams.set('arch', opts.arch);
  let res: Response;
  try {
    res = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(opts.timeoutMs ?? FETCH_TIMEOUT_MS) });
  } catch (err) {
    const why =
      err instanceof Error
        ? err.name === 'TimeoutError'
          ? 'no answer in time'
          : ((err.cause as Error | undefined)?.message ?? err.message)
        : String(err);
    throw new UpdateServiceError(`${url.origin}${url.pathname}: ${why}`);
  }
  const text = await readLimited(res, MAX_GRAPH_BYTES);
  if (!res.ok) {
    // Cincinnati answers errors as {kind, value}
    let detail = text.slice(0, 200);
    try {
      const body = JSON.parse(text) as { value?: unknown; kind?: unknown };
      if (typeof body.value === 'string') detail = body.value;
    } catch {
      // not JSON: the text itself
    }
    throw new UpdateServiceError(`${url.origin}${url.pathname} answered HTTP ${res.status} for channel ${opts.channel}: ${detail}`);
  }
  return text;
}

/** the body as text, refused once more than `maxBytes` have arrived (whatever Content-Length claims) */
async function readLimited(res: Response, maxBytes: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw new UpdateServiceError(`the graph is larger than ${maxBytes / 1048576} MB`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

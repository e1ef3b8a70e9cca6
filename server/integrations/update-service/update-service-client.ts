// Reads a channel's update graph from a Cincinnati-compatible endpoint: the public OpenShift
// Update Service (api.openshift.com/api/upgrades_info/v1/graph) or an OpenShift Update Service in
// a disconnected site. GET `<url>?channel=<channel>&arch=<arch>` with `Accept: application/json`
// answers the graph document `{nodes, edges, conditionalEdges}` the Paths page already imports.
import { MAX_GRAPH_BYTES } from '@/lib/graph-document-limit';
import { readLimitedBody } from '@/server/http/read-limited-body';

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
  const body = await readLimitedBody(res, MAX_GRAPH_BYTES);
  if (!body.ok) throw new UpdateServiceError(`the graph is larger than ${MAX_GRAPH_BYTES / 1048576} MB`);
  const text = new TextDecoder().decode(body.bytes);
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

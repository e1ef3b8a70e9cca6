// Prometheus scrape endpoint (text exposition format). The metrics name every cluster and its
// versions, so a scrape needs an identity: an API token (`authorization: Bearer fp_…`, any role)
// or a signed-in session. FLEETPLAN_METRICS_PUBLIC=1 opens it for scrapers inside a trusted network.
// A scrape carries no body: one is refused before anything else happens. Every value is read from
// the database (server/metrics/collect-fleet-metrics.ts), so any replica answers the same; the
// production server renders it in its background thread, not the one answering requests.
import { getDb } from '@/db/client';
import { resolveRequestActor } from '@/server/auth/resolve-request-actor';
import { getEnv } from '@/server/env';
import { getFleetClock } from '@/server/fleet-clock';
import { readLimitedBody, payloadTooLarge } from '@/server/http/read-limited-body';
import { withApiHeaders } from '@/server/http/security-headers';
import { renderFleetMetricsOffThread } from '@/server/metrics/collect-fleet-metrics';
import { EXPOSITION_CONTENT_TYPE } from '@/server/metrics/exposition';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export const GET = withApiHeaders(async (req: Request): Promise<Response> => {
  if (!(await readLimitedBody(req, 0)).ok) return payloadTooLarge('A metrics scrape takes no request body');
  const db = getDb();
  const env = getEnv();
  if (!env.metricsPublic) {
    const { actor } = await resolveRequestActor(db, req);
    if (!actor) {
      return new Response('metrics need an API token (Authorization: Bearer fp_...) or a session\n', {
        status: 401,
        headers: { 'content-type': 'text/plain; charset=utf-8', 'www-authenticate': 'Bearer realm="fleetplan"' },
      });
    }
    // a token scoped to one permission (approvals:write) reads nothing, metrics included
    if (actor.permission) {
      return new Response(`this token may only do ${actor.permission}\n`, {
        status: 403,
        headers: { 'content-type': 'text/plain; charset=utf-8' },
      });
    }
  }
  const body = await renderFleetMetricsOffThread(db, (await getFleetClock(db))(), { providerName: env.provider.name });
  return new Response(body, { headers: { 'content-type': EXPOSITION_CONTENT_TYPE } });
});

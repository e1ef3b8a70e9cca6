// Prometheus scrape endpoint (text exposition format).
import { getDb } from '@/db/client';
import { getFleetClock } from '@/server/fleet-clock';
import { collectFleetMetrics } from '@/server/metrics/collect-fleet-metrics';
import { getMetrics } from '@/server/metrics/registry';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export async function GET(): Promise<Response> {
  const db = getDb();
  collectFleetMetrics(db, getFleetClock(db)());
  const { registry } = getMetrics();
  return new Response(await registry.metrics(), { headers: { 'content-type': registry.contentType } });
}

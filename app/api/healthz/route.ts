// Liveness + readiness: answers 200 only when the database answers.
import { sql } from 'drizzle-orm';
import { getDb } from '@/db/client';
import { withApiHeaders } from '@/server/http/security-headers';

export const dynamic = 'force-dynamic';

export const GET = withApiHeaders(() => {
  const started = performance.now();
  try {
    getDb().get(sql`select 1`);
    return Response.json({ status: 'ok', database: 'ok', latencyMs: Math.round((performance.now() - started) * 100) / 100 });
  } catch (err) {
    console.error('healthz: database check failed', err);
    return Response.json({ status: 'error', database: 'unreachable' }, { status: 503 });
  }
});

// Liveness + readiness: answers 200 only when the database answers.
import { getDb } from '@/db/client';
import { pingDatabase } from '@/server/repositories/health-repository';
import { withApiHeaders } from '@/server/http/security-headers';

export const dynamic = 'force-dynamic';

export const GET = withApiHeaders(async () => {
  const started = performance.now();
  try {
    await pingDatabase(getDb());
    return Response.json({ status: 'ok', database: 'ok', latencyMs: Math.round((performance.now() - started) * 100) / 100 });
  } catch (err) {
    console.error('healthz: database check failed', err);
    return Response.json({ status: 'error', database: 'unreachable' }, { status: 503 });
  }
});

// Readiness for load balancers: 200 while this replica can serve (its database answers), with
// whether it leads the scheduler. `?role=leader` answers 200 only on the replica holding the
// scheduler lease (503 elsewhere): for a check or a Service that must reach the acting replica.
import { getDb } from '@/db/client';
import { getEnv } from '@/server/env';
import { withApiHeaders } from '@/server/http/security-headers';
import { processHolder } from '@/server/process-holder';
import { checkReadiness } from '@/server/services/readiness-service';

export const dynamic = 'force-dynamic';

export const GET = withApiHeaders(async (request: Request) => {
  const readiness = await checkReadiness(getDb(), {
    replica: processHolder(),
    schedulerEnabled: getEnv().schedulerEnabled,
    nowMs: Date.now(),
  });
  const leaderOnly = new URL(request.url).searchParams.get('role') === 'leader';
  const ok = readiness.ready && (!leaderOnly || readiness.leads);
  return Response.json(readiness, { status: ok ? 200 : 503 });
});

// GET /api/auth/<provider>/start?next=/path: off to the identity provider (server/http/external-sign-in.ts).
import { startExternalSignIn } from '@/server/http/external-sign-in';
import { withApiHeaders } from '@/server/http/security-headers';

export const dynamic = 'force-dynamic';

export const GET = withApiHeaders((req: Request, { params }: { params: Promise<{ provider: string }> }) =>
  params.then(({ provider }) => startExternalSignIn(req, provider)),
);

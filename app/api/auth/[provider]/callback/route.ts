// GET /api/auth/<provider>/callback: the identity provider's redirect back (server/http/external-sign-in.ts).
import { completeExternalSignIn } from '@/server/http/external-sign-in';
import { withApiHeaders } from '@/server/http/security-headers';

export const dynamic = 'force-dynamic';

export const GET = withApiHeaders((req: Request, { params }: { params: Promise<{ provider: string }> }) =>
  params.then(({ provider }) => completeExternalSignIn(req, provider)),
);

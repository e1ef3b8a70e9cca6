// Next.js Proxy (the file convention formerly called middleware): sends page requests without a
// session cookie to /login. It only checks that the cookie is present; the tRPC layer validates it
// against the database (server/auth/resolve-request-actor.ts) and the user menu sends a browser
// with a stale cookie back here. /api/* answers 401 itself, so it is not redirected.
// @see node_modules/next/dist/docs/01-app/03-api-reference/03-file-conventions/proxy.md
import { NextResponse, type NextRequest } from 'next/server';

const SESSION_COOKIE = 'fleetplan_session';

export function proxy(request: NextRequest) {
  const { pathname, search } = request.nextUrl;
  const response =
    request.cookies.get(SESSION_COOKIE)?.value || pathname === '/login'
      ? NextResponse.next()
      : NextResponse.redirect(new URL(`/login?next=${encodeURIComponent(pathname + search)}`, request.url));
  response.headers.set('X-Frame-Options', 'DENY');
  response.headers.set('X-Content-Type-Options', 'nosniff');
  response.headers.set('Referrer-Policy', 'same-origin');
  return response;
}

export const config = {
  // everything but the API, Next's own assets and files with an extension (favicon, images)
  matcher: ['/((?!api/|_next/|.*\\.[a-zA-Z0-9]+$).*)'],
};

// Next.js Proxy (the file convention formerly called middleware) for pages:
// - sends page requests without a session cookie to /login. It only checks that the cookie is
//   present; the tRPC layer validates it against the database (server/auth/resolve-request-actor.ts)
//   and the user menu sends a browser with a stale cookie back here.
// - gives every page a Content-Security-Policy with a fresh nonce. Next reads the nonce from the
//   request's CSP header and puts it on its scripts; pages are rendered per request for that
//   (app/layout.tsx), a prerendered page would carry no nonce.
// /api/* and /paths/upload are not matched: they answer 401 and set their headers themselves
// (server/http/security-headers.ts), and Next copies the body of every matched request into
// memory and cuts it at 10 MB (proxyClientMaxBodySize), which would break the 20 MB graph upload.
// @see node_modules/next/dist/docs/01-app/03-api-reference/03-file-conventions/proxy.md
// @see node_modules/next/dist/docs/01-app/02-guides/content-security-policy.md
import { NextResponse, type NextRequest } from 'next/server';
import { newCspNonce, pageContentSecurityPolicy, setCommonSecurityHeaders, wantsHsts } from '@/server/http/security-headers';

const SESSION_COOKIE = 'fleetplan_session';

export function proxy(request: NextRequest) {
  const { pathname, search } = request.nextUrl;
  const hsts = wantsHsts(request);
  const csp = pageContentSecurityPolicy(newCspNonce(), { dev: process.env.NODE_ENV === 'development', secure: hsts });
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set('Content-Security-Policy', csp);
  const response =
    request.cookies.get(SESSION_COOKIE)?.value || pathname === '/login'
      ? NextResponse.next({ request: { headers: requestHeaders } })
      : NextResponse.redirect(new URL(`/login?next=${encodeURIComponent(pathname + search)}`, request.url));
  response.headers.set('Content-Security-Policy', csp);
  setCommonSecurityHeaders(response.headers, hsts);
  return response;
}

export const config = {
  // everything but the API, the graph upload, Next's own assets and files with an extension (favicon, images)
  matcher: ['/((?!api/|paths/upload$|_next/|.*\\.[a-zA-Z0-9]+$).*)'],
};

// The security headers fleetplan sends. Pages get theirs from proxy.ts (a fresh CSP nonce per
// request); API answers from withApiHeaders. next.config.js adds the static ones to everything
// else (Next's own assets), so every response carries nosniff, framing and referrer rules.
import staticSecurityHeaders from './static-security-headers.json';

/**
 * Headers every response carries, pages and API alike: no sniffing, no framing, same-origin
 * referrers, and no browser features (no page needs them). The list is a JSON file so that
 * next.config.js (plain JS) sends the very same one for Next's assets.
 */
export const STATIC_SECURITY_HEADERS: ReadonlyArray<{ key: string; value: string }> = staticSecurityHeaders;

const HSTS = 'max-age=31536000';

/** The request came over TLS: directly, or through a proxy that says so in x-forwarded-proto. */
export function isSecureRequest(req: Request): boolean {
  const forwarded = req.headers.get('x-forwarded-proto')?.split(',')[0]?.trim();
  return (forwarded ?? new URL(req.url).protocol.replace(':', '')) === 'https';
}

/**
 * Whether this answer may tell browsers to use https only: the request came over TLS, or
 * FLEETPLAN_HSTS=1 says the deployment is always behind TLS. FLEETPLAN_HSTS=0 never sends it. Over
 * plain http HSTS would be ignored anyway, and sending it from a plain-http deployment could lock
 * users out of it.
 */
export function wantsHsts(req: Request, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.FLEETPLAN_HSTS === '1') return true;
  if (env.FLEETPLAN_HSTS === '0') return false;
  return isSecureRequest(req);
}

/**
 * CSP of a page: scripts only with this request's nonce (Next puts it on its own scripts when it
 * finds it in the request's CSP header) and whatever those load ('strict-dynamic'). Style
 * attributes stay allowed: React renders `style={...}` into the server HTML, and the charts and the
 * graph view position everything with them; nonces cannot cover attributes. `<style>` elements
 * need the nonce like scripts.
 */
export function pageContentSecurityPolicy(nonce: string, opts: { dev: boolean; secure: boolean }): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${opts.dev ? " 'unsafe-eval'" : ''}`,
    `style-src 'self' 'nonce-${nonce}'${opts.dev ? " 'unsafe-inline'" : ''}`,
    "style-src-attr 'unsafe-inline'",
    "img-src 'self' blob: data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    ...(opts.secure ? ['upgrade-insecure-requests'] : []),
  ].join('; ');
}

/** API answers are data, never documents: nothing may load or frame them. */
export const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

export function newCspNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}

/** Sets the headers every answer of the app carries, and HSTS when `hsts` (wantsHsts of the request). */
export function setCommonSecurityHeaders(headers: Headers, hsts: boolean): void {
  for (const { key, value } of STATIC_SECURITY_HEADERS) headers.set(key, value);
  if (hsts) headers.set('Strict-Transport-Security', HSTS);
}

/**
 * Wraps an API route handler: its answers are never cached (they carry fleet data and session
 * cookies) and carry the security headers.
 */
export function withApiHeaders<Args extends unknown[]>(
  handler: (req: Request, ...rest: Args) => Promise<Response> | Response,
): (req: Request, ...rest: Args) => Promise<Response> {
  return async (req, ...rest) => {
    const res = await handler(req, ...rest);
    const headers = new Headers(res.headers);
    setCommonSecurityHeaders(headers, wantsHsts(req));
    headers.set('Content-Security-Policy', API_CONTENT_SECURITY_POLICY);
    headers.set('Cache-Control', 'no-store');
    return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
  };
}

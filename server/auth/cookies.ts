// Session cookies. The session cookie is httpOnly (scripts never see it); the CSRF cookie is
// readable by the page so components/trpc/client.tsx can echo it in `x-csrf-token`
// (double-submit, checked against the session row, not just against the cookie).
export const SESSION_COOKIE = 'fleetplan_session';
export const CSRF_COOKIE = 'fleetplan_csrf';
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

export interface CookieOptions {
  /** add `Secure` (the request came over https) */
  secure: boolean;
}

function serialize(name: string, value: string, opts: CookieOptions & { httpOnly: boolean; maxAgeSeconds: number }): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, 'Path=/', `Max-Age=${opts.maxAgeSeconds}`, 'SameSite=Lax'];
  if (opts.httpOnly) parts.push('HttpOnly');
  if (opts.secure) parts.push('Secure');
  return parts.join('; ');
}

export function sessionCookies(token: string, csrfToken: string, opts: CookieOptions): string[] {
  const maxAgeSeconds = Math.floor(SESSION_TTL_MS / 1000);
  return [
    serialize(SESSION_COOKIE, token, { ...opts, httpOnly: true, maxAgeSeconds }),
    serialize(CSRF_COOKIE, csrfToken, { ...opts, httpOnly: false, maxAgeSeconds }),
  ];
}

export function clearedSessionCookies(opts: CookieOptions): string[] {
  return [
    serialize(SESSION_COOKIE, '', { ...opts, httpOnly: true, maxAgeSeconds: 0 }),
    serialize(CSRF_COOKIE, '', { ...opts, httpOnly: false, maxAgeSeconds: 0 }),
  ];
}

/** Parses a Cookie header; the first occurrence of a name wins; bad encodings are skipped. */
export function parseCookieHeader(header: string | null): Map<string, string> {
  const cookies = new Map<string, string>();
  if (!header || header.length > 16_384) return cookies;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (cookies.has(name)) continue;
    try {
      cookies.set(name, decodeURIComponent(part.slice(eq + 1).trim()));
    } catch {
      // malformed %-encoding: ignore this cookie
    }
  }
  return cookies;
}

// Page headers from proxy.ts (a fresh nonce CSP per request) and the static list in next.config.js.
import { createRequire } from 'node:module';
import { NextRequest } from 'next/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { config as proxyConfig, proxy } from '@/proxy';
import { STATIC_SECURITY_HEADERS } from './security-headers';

afterEach(() => vi.unstubAllEnvs());

function page(path: string, headers: Record<string, string> = {}) {
  return proxy(new NextRequest(`http://fleet.test${path}`, { headers: { cookie: 'fleetplan_session=abc', ...headers } }));
}

function nonceOf(csp: string | null): string {
  return /'nonce-([^']+)'/.exec(csp ?? '')?.[1] ?? '';
}

describe('proxy.ts page headers', () => {
  it('a CSP with a fresh nonce per request, passed to Next in the request headers too', () => {
    const first = page('/fleet');
    const second = page('/fleet');
    const csp = first.headers.get('content-security-policy');
    expect(nonceOf(csp)).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(nonceOf(second.headers.get('content-security-policy'))).not.toBe(nonceOf(csp));
    expect(csp).toContain(`script-src 'self' 'nonce-${nonceOf(csp)}' 'strict-dynamic'`);
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).toContain("base-uri 'self'");
    // NextResponse.next({ request: { headers } }) hands Next the request CSP it takes the nonce from
    expect(first.headers.get('x-middleware-request-content-security-policy')).toBe(csp);
  });

  it('the other headers, on pages and on the sign-in redirect alike; HSTS only behind TLS', () => {
    const redirect = proxy(new NextRequest('http://fleet.test/fleet'));
    expect(redirect.status).toBe(307);
    for (const res of [page('/fleet'), redirect]) {
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      for (const { key, value } of STATIC_SECURITY_HEADERS) expect(res.headers.get(key)).toBe(value);
      expect(res.headers.get('strict-transport-security')).toBeNull();
    }
    const tls = page('/fleet', { 'x-forwarded-proto': 'https' });
    expect(tls.headers.get('strict-transport-security')).toBe('max-age=31536000');
    expect(tls.headers.get('content-security-policy')).toContain('upgrade-insecure-requests');
  });

  it('no unsafe-eval in production, only for next dev', () => {
    expect(page('/fleet').headers.get('content-security-policy')).not.toContain('unsafe-eval');
    vi.stubEnv('NODE_ENV', 'development');
    expect(page('/fleet').headers.get('content-security-policy')).toContain("'unsafe-eval'");
  });

  it('does not match the API or the graph upload (their bodies must reach them whole)', () => {
    // the matcher is a path-to-regexp pattern; this one is also a plain regular expression
    const matched = new RegExp(`^${proxyConfig.matcher[0]}$`);
    for (const path of ['/fleet', '/paths', '/login', '/clusters/a-b']) expect(matched.test(path)).toBe(true);
    for (const path of ['/paths/upload', '/api/trpc/auth.login', '/api/metrics', '/_next/static/x.js', '/icon.svg']) {
      expect(matched.test(path)).toBe(false);
    }
  });
});

describe('next.config.js', () => {
  it('sends the same static security headers as the app code on every path', async () => {
    const config = createRequire(import.meta.url)('../../next.config.js') as {
      headers: () => Promise<{ source: string; headers: { key: string; value: string }[] }[]>;
    };
    const [all] = await config.headers();
    expect(all?.source).toBe('/:path*');
    expect(all?.headers).toEqual(STATIC_SECURITY_HEADERS);
  });
});

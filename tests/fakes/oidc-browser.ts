// What a browser does at an OpenID Connect provider during a sign-in, for tests that drive the real
// flow against the test IdP (tests/fakes/test-oidc-idp.ts): follow its redirects, keeping its
// cookies, until it sends the browser back to the app; and the sign-in flow cookie it carries there.
import { parseCookieHeader } from '@/server/auth/cookies';
import { SIGN_IN_FLOW_COOKIE } from '@/server/services/auth-service';

/** Follows `location` at the provider until a redirect reaches `appOrigin`; returns that callback URL. */
export async function followProviderRedirects(location: URL, appOrigin: string): Promise<URL> {
  const jar = new Map<string, string>();
  let url = location;
  for (let hop = 0; hop < 10; hop++) {
    if (url.href.startsWith(appOrigin)) return url;
    const res = await fetch(url, {
      redirect: 'manual',
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair!.indexOf('=');
      jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    const next = res.headers.get('location');
    if (!next) throw new Error(`the provider answered ${res.status} without a redirect: ${await res.text()}`);
    url = new URL(next, url);
  }
  throw new Error('too many redirects at the provider');
}

/** The flow cookie's value the browser sends with the callback, from the Set-Cookie that began the sign-in. */
export function flowCookieOf(setCookie: string): string {
  return parseCookieHeader(setCookie.split(';')[0]!).get(SIGN_IN_FLOW_COOKIE)!;
}

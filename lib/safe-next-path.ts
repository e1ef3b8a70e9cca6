// Where to go after signing in: only a path on this site, so the login page cannot be used as an
// open redirect. Browsers strip tabs and newlines from URLs and read `\` as `/`, so `/\t/evil.example`
// or `/\evil.example` become `//evil.example`: rather than listing such tricks, resolve the value
// the way the browser will, insist on our own origin, and hand back only the normalised path.
const FALLBACK = '/fleet';
const PROBE_ORIGIN = 'http://fleetplan.invalid';

function hasControlSpaceOrBackslash(value: string): boolean {
  for (const ch of value) {
    const code = ch.codePointAt(0)!;
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || ch === '\\' || /\s/.test(ch)) return true;
  }
  return false;
}

export function safeNextPath(value: string | undefined | null): string {
  // control characters and spaces have no place in a path we produced ourselves
  if (!value || value.length > 2000 || !value.startsWith('/') || hasControlSpaceOrBackslash(value)) return FALLBACK;
  let url: URL;
  try {
    url = new URL(value, PROBE_ORIGIN);
  } catch {
    return FALLBACK;
  }
  if (url.origin !== PROBE_ORIGIN) return FALLBACK;
  const path = url.pathname + url.search + url.hash;
  // `/.//evil.example` normalises to `//evil.example`, which a browser reads as another host
  if (!path.startsWith('/') || path.startsWith('//') || url.pathname === '/login' || url.pathname.startsWith('/login/')) return FALLBACK;
  return path;
}

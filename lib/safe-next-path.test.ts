// safeNextPath must never hand the browser a URL that leaves this origin, whatever tricks the
// `next` parameter plays; each hostile value is also resolved the way a browser would, to prove it
// stays on our origin.
import { describe, expect, it } from 'vitest';
import { safeNextPath } from './safe-next-path';

const SITE = 'https://fleet.example';

/** where a browser on SITE lands after `location.assign(next)` */
function landing(next: string): URL {
  return new URL(next, `${SITE}/login`);
}

describe('safeNextPath', () => {
  it.each([
    ['/fleet', '/fleet'],
    ['/clusters/hive-prod-01', '/clusters/hive-prod-01'],
    ['/activity?action=policy.&page=2', '/activity?action=policy.&page=2'],
    ['/policies#sectors', '/policies#sectors'],
    ['/a/./b/../c', '/a/c'],
    ['/%2F%2Fevil.example', '/%2F%2Fevil.example'],
  ])('keeps the same-origin path %j as %j', (input, expected) => {
    expect(safeNextPath(input)).toBe(expected);
    expect(landing(safeNextPath(input)).origin).toBe(SITE);
  });

  it.each([
    // the reported findings: a tab or a newline between the slashes is stripped by the browser
    '/\t/127.0.0.1:3290/x',
    '/\n/127.0.0.1:3290/x',
    '/\r\n/evil.example',
    '\t//evil.example',
    // protocol-relative and backslash forms
    '//evil.example',
    '///evil.example',
    '/\\evil.example',
    '\\/evil.example',
    '/\\/evil.example',
    // absolute URLs and schemes
    'https://evil.example/',
    'http:evil.example',
    'javascript:alert(1)',
    'data:text/html,hi',
    // paths that normalise to `//host`
    '/.//evil.example',
    '/a/../..//evil.example',
    '/./\t/evil.example',
    // odd characters
    '/\u0000/evil.example',
    '/ /evil.example',
    '/\u00a0/x',
    // not a path at all, too long, or the login page itself (a loop)
    'fleet',
    '',
    '/' + 'a'.repeat(2001),
    '/login',
    '/login?next=/fleet',
    '/login/',
  ])('refuses %j and falls back to /fleet', (input) => {
    expect(safeNextPath(input)).toBe('/fleet');
  });

  it('falls back for missing values', () => {
    expect(safeNextPath(undefined)).toBe('/fleet');
    expect(safeNextPath(null)).toBe('/fleet');
  });

  it('never returns something that leaves the origin, for any mix of slashes, dots, spaces and control characters', () => {
    const pieces = ['/', '\\', '.', '..', '\t', '\n', '\r', ' ', '%2F', '%09', 'evil.example', ':', '@', '?', '#', 'x'];
    let checked = 0;
    for (const a of pieces)
      for (const b of pieces)
        for (const c of pieces)
          for (const d of pieces) {
            const next = safeNextPath(`/${a}${b}${c}${d}`);
            expect(next.startsWith('/') && !next.startsWith('//')).toBe(true);
            expect(landing(next).origin).toBe(SITE);
            checked++;
          }
    expect(checked).toBe(pieces.length ** 4);
  });
});

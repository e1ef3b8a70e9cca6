import fc from 'fast-check';
import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { blockingPatternOf, isPlainText, patternMatches, plainPatternRegExp } from './blocked-versions';

describe('blockingPatternOf: the instance list, then the organization, then the cluster', () => {
  const org = { blockedVersions: ['^4\\.14\\.1$'], instanceBlockedVersions: ['^4\\.14\\.'] };

  it('names a pattern of the instance list as blocked instance-wide, before the organization', () => {
    expect(blockingPatternOf('4.14.1', org)).toBe('^4\\.14\\. (blocked instance-wide)');
    expect(blockingPatternOf('4.14.1', { blockedVersions: org.blockedVersions })).toBe('^4\\.14\\.1$');
  });

  it("applies the organization's and the cluster's lists as before, and nothing blocks what none matches", () => {
    const none = { blockedVersions: ['^4\\.13\\.2$'], instanceBlockedVersions: [] };
    expect(blockingPatternOf('4.13.2', none)).toBe('^4\\.13\\.2$');
    expect(blockingPatternOf('4.13.3', none, ['4\\.13\\.3'])).toBe('4\\.13\\.3');
    expect(blockingPatternOf('4.15.0', org, ['^4\\.13'])).toBeUndefined();
  });
});

describe('plain patterns: a JavaScript RegExp where it agrees with RE2', () => {
  const re2Finds = (pattern: string, text: string) => RE2JS.compile(pattern).matcher(text).find();

  it('takes the shapes blocked-version lists are written in, and leaves the rest to RE2', () => {
    for (const plain of ['^4\\.14\\.(3|7)$', '-rc', '^.*-rc\\..*$', '4\\.1.\\.0', '^$', '', '(fc|rc)\\.', '^4\\.14\\..+$'])
      expect(plainPatternRegExp(plain), plain).not.toBeNull();
    for (const other of [
      '4\\.1[2-4]',
      '(a|b)*',
      'a+',
      '.*.*.*',
      '^.*.*.*$',
      '.*a.*',
      '\\d',
      '(?:a)',
      'a{2}',
      '.*?',
      'a|b',
      '(a|)',
      '()',
      '^a$b',
    ])
      expect(plainPatternRegExp(other), other).toBeNull();
  });

  it('finds a match exactly where RE2 does, on random plain patterns and texts', () => {
    const atom = fc.oneof(
      fc.constantFrom('4', '1', '0', '.', '\\.', '-', 'r', 'c', 'a', '_', '.*', '.+'),
      fc.array(fc.constantFrom('1', '3', '\\.', 'rc', 'x-'), { minLength: 1, maxLength: 3 }).map((alts) => `(${alts.join('|')})`),
    );
    const pattern = fc
      .tuple(fc.boolean(), fc.array(atom, { maxLength: 6 }), fc.boolean())
      .map(([start, atoms, end]) => `${start ? '^' : ''}${atoms.join('')}${end ? '$' : ''}`);
    const text = fc.oneof(
      fc.stringMatching(/^[0-9.]{0,12}$/),
      fc.array(fc.constantFrom('4', '.', '1', '3', '0', '-', 'rc', 'x', '\n', '\r', '_', 'a'), { maxLength: 14 }).map((s) => s.join('')),
    );
    let plain = 0;
    fc.assert(
      fc.property(pattern, text, (p, t) => {
        const re = plainPatternRegExp(p);
        if (re === null) return;
        plain++;
        expect(re.test(t), `${p} on ${JSON.stringify(t)}`).toBe(re2Finds(p, t));
        expect(patternMatches(p, t)).toBe(re2Finds(p, t));
      }),
      { numRuns: 3000 },
    );
    // most generated patterns are plain: the comparison is not vacuous
    expect(plain).toBeGreaterThan(1000);
  });

  it('reads `.` as RE2 does (any character but a line feed) and anchors at the very ends', () => {
    const cases: [string, string][] = [
      ['^4.3$', '4\r3'],
      ['^4.3$', '4\n3'],
      ['^4.*$', '4.14\n'],
      ['^4\\.14$', '4.14\n'],
      ['rc$', 'rc\n'],
      ['^rc', '\nrc'],
      ['^(3|7)$', '7'],
    ];
    for (const [pattern, text] of cases) {
      expect(plainPatternRegExp(pattern), pattern).not.toBeNull();
      expect(patternMatches(pattern, text), `${pattern} on ${JSON.stringify(text)}`).toBe(re2Finds(pattern, text));
    }
  });

  it('leaves text that is not plain (not ASCII, or long) to RE2', () => {
    expect(isPlainText('4.14.3-rc.1')).toBe(true);
    expect(isPlainText('4.14.3-ré')).toBe(false);
    expect(isPlainText('4'.repeat(257))).toBe(false);
    // `.` is one code point in RE2, one UTF-16 unit in a RegExp without the u flag
    expect(patternMatches('^4.$', '4😀')).toBe(true);
    expect(patternMatches('^.*-rc$', `${'4'.repeat(300)}-rc`)).toBe(true);
  });
});

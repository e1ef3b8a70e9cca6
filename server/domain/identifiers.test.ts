import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { identifierProblem, isValidIdentifier } from './identifiers';

describe('identifierProblem', () => {
  it('accepts ordinary names, in any script, with inner spaces and astral characters', () => {
    for (const name of ['prod-eu-1', 'hive_stage.2', 'Zürich', '東京-prod', 'team a', 'rocket 🚀', 'x', '']) {
      expect(identifierProblem(name)).toBeNull();
    }
  });

  it.each([
    ['NUL', 'ab\u0000c', 'contains a control character U+0000 at position 3'],
    ['a newline', 'a\nb', 'contains a control character U+000A at position 2'],
    ['a tab', '\tab', 'contains a control character U+0009 at position 1'],
    ['ESC', 'a\u001b[31m', 'contains a control character U+001B at position 2'],
    ['DEL', 'a\u007f', 'contains a control character U+007F at position 2'],
    ['a C1 control (NEL)', 'a\u0085b', 'contains a control character U+0085 at position 2'],
    ['RIGHT-TO-LEFT OVERRIDE', 'prod\u202Eved', 'contains a bidirectional control character U+202E at position 5'],
    ['LEFT-TO-RIGHT EMBEDDING', '\u202Aa', 'contains a bidirectional control character U+202A at position 1'],
    ['FIRST STRONG ISOLATE', 'a\u2068b', 'contains a bidirectional control character U+2068 at position 2'],
    ['POP DIRECTIONAL ISOLATE', 'a\u2069', 'contains a bidirectional control character U+2069 at position 2'],
    ['RIGHT-TO-LEFT MARK', 'a\u200Fb', 'contains a bidirectional control character U+200F at position 2'],
    ['LEFT-TO-RIGHT MARK', 'a\u200Eb', 'contains a bidirectional control character U+200E at position 2'],
    ['ARABIC LETTER MARK', 'a\u061Cb', 'contains a bidirectional control character U+061C at position 2'],
    ['LINE SEPARATOR', 'a\u2028b', 'contains a line separator U+2028 at position 2'],
    ['a lone high surrogate', 'a\uD83D', 'contains a lone surrogate U+D83D at position 2 (not valid text)'],
    ['a lone low surrogate', '\uDE80a', 'contains a lone surrogate U+DE80 at position 1 (not valid text)'],
    ['a high surrogate before a letter', '\uD83Dab', 'contains a lone surrogate U+D83D at position 1 (not valid text)'],
    ['leading space', ' prod', 'starts with whitespace (U+0020)'],
    ['trailing no-break space', 'prod\u00A0', 'ends with whitespace (U+00A0)'],
    ['a leading byte order mark', '\uFEFFprod', 'starts with whitespace (U+FEFF)'],
  ])('refuses %s, naming the character and where', (_label, name, message) => {
    expect(identifierProblem(name)).toBe(message);
    expect(isValidIdentifier(name)).toBe(false);
  });

  it('counts a character outside the BMP as one position', () => {
    expect(identifierProblem('🚀🚀\u202E')).toBe('contains a bidirectional control character U+202E at position 3');
  });
});

/** identifierProblem as it was before its printable-ASCII fast paths: every unit classified, `\s` tested by regex. */
function straightforwardIdentifierProblem(name: string): string | null {
  const label = (code: number) => `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  let position = 0;
  for (let i = 0; i < name.length; i++) {
    position++;
    const code = name.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdfff) {
      const next = name.charCodeAt(i + 1);
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      return `contains a lone surrogate ${label(code)} at position ${position} (not valid text)`;
    }
    let kind: string | null = null;
    if (code <= 0x1f || code === 0x7f || (code >= 0x80 && code <= 0x9f)) kind = 'a control character';
    else if (
      (code >= 0x202a && code <= 0x202e) ||
      (code >= 0x2066 && code <= 0x2069) ||
      code === 0x200e ||
      code === 0x200f ||
      code === 0x061c
    ) {
      kind = 'a bidirectional control character';
    } else if (code === 0x2028 || code === 0x2029) kind = 'a line separator';
    if (kind) return `contains ${kind} ${label(code)} at position ${position}`;
  }
  if (name.length > 0) {
    if (/\s/.test(name[0] as string)) return `starts with whitespace (${label(name.charCodeAt(0))})`;
    if (/\s/.test(name[name.length - 1] as string)) return `ends with whitespace (${label(name.charCodeAt(name.length - 1))})`;
  }
  return null;
}

describe('identifierProblem against the straightforward rule', () => {
  it('answers as it for any text, ASCII or not, whitespace at the ends included', () => {
    // units drawn from the ranges the rule distinguishes, so refusals come up often
    const unit = fc.oneof(
      fc.integer({ min: 0, max: 0x7f }),
      fc.integer({ min: 0x80, max: 0xa0 }),
      fc.constantFrom(0x1680, 0x2000, 0x200a, 0x200e, 0x2028, 0x2029, 0x202a, 0x202f, 0x205f, 0x2066, 0x3000, 0xfeff, 0x061c),
      fc.integer({ min: 0xd800, max: 0xdfff }),
      fc.integer({ min: 0, max: 0xffff }),
    );
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 12 }), (codes) => {
        const name = String.fromCharCode(...codes);
        expect(identifierProblem(name)).toBe(straightforwardIdentifierProblem(name));
      }),
      { numRuns: 20_000 },
    );
  });
});

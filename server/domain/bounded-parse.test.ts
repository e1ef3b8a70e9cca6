import { describe, expect, it } from 'vitest';
import { DOCUMENT_LIMITS, parseJsonText, scanJson, type ParseLimits } from './bounded-parse';
import { parseYamlText } from './bounded-parse-yaml';

/** The classic "billion laughs": nine levels of nine aliases, 9^9 strings from 350 bytes. */
const BILLION_LAUGHS = [
  'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  ...'bcdefghi'.split('').map((name, i) => {
    const prev = 'abcdefghi'[i] as string;
    return `${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`;
  }),
].join('\n');

function keysDocument(count: number): string {
  return Array.from({ length: count }, (_, i) => `k${i}: v${i}`).join('\n');
}

function nested(depth: number, open = '[', close = ']'): string {
  return open.repeat(depth) + close.repeat(depth);
}

function problemsOf(result: ReturnType<typeof parseYamlText>) {
  expect(result.ok).toBe(false);
  return result.ok ? [] : result.problems;
}

const limits = (over: Partial<ParseLimits>): ParseLimits => ({ ...DOCUMENT_LIMITS, ...over });

describe('parseYamlText: duplicate keys', () => {
  it('reads a mapping of 40,000 keys (the document that froze the server for 27 s)', () => {
    const parsed = parseYamlText(keysDocument(40_000));
    expect(parsed.ok).toBe(true);
    const value = parsed.ok ? (parsed.value as Record<string, string>) : {};
    expect(Object.keys(value)).toHaveLength(40_000);
    expect(value.k39999).toBe('v39999');
  });

  it('finds a duplicate among 40,000 keys, at its line and naming the key', () => {
    const problems = problemsOf(parseYamlText(`${keysDocument(40_000)}\nk17: again\n`));
    expect(problems).toEqual([
      { path: 'line 40001', line: 40001, message: 'invalid YAML: duplicate key k17 (the keys of a mapping must be unique)' },
    ]);
  });

  it('finds duplicates in nested and flow mappings; equal keys in different mappings are fine', () => {
    expect(problemsOf(parseYamlText('a: 1\nb:\n  c: 2\n  d: 3\n  c: 4\n'))[0]).toMatchObject({
      path: 'line 5',
      message: expect.stringMatching(/duplicate key c /) as unknown,
    });
    expect(problemsOf(parseYamlText('x: {"a": 1, "a": 2}\n'))[0]).toMatchObject({
      path: 'line 1',
      message: expect.stringMatching(/duplicate key "a"/) as unknown,
    });
    // 1 and "1" become the same property: a duplicate too (the old parser kept the last silently)
    expect(problemsOf(parseYamlText('1: a\n"1": b\n'))[0]).toMatchObject({ path: 'line 2' });
    expect(parseYamlText('a: {x: 1}\nb: {x: 2}\n')).toEqual({ ok: true, value: { a: { x: 1 }, b: { x: 2 } } });
  });
});

describe('parseYamlText: aliases', () => {
  it('refuses a billion laughs at (document), naming the limit and where it was reached', () => {
    const problems = problemsOf(parseYamlText(BILLION_LAUGHS));
    expect(problems).toHaveLength(1);
    expect(problems[0]?.path).toBe('(document)');
    expect(problems[0]?.message).toMatch(
      /^aliases expand the document to more than [\d,]+ values and characters \(the limit: 5 per character of its text, plus 100,000\), at [a-i](\[\d\])+$/,
    );
  });

  it('refuses a long string repeated through aliases', () => {
    const text = `s: &s "${'x'.repeat(50_000)}"\nl: [${Array(100).fill('*s').join(', ')}]\n`;
    expect(problemsOf(parseYamlText(text))[0]?.message).toMatch(/^aliases expand the document .*, at l\[\d+\]$/);
  });

  it('accepts aliases used the ordinary way: one shared policy for a thousand clusters', () => {
    const text = [
      'defaults: &std {workloads: [wl], schedule: "0 13 * * 1-5", conditions: {soakDays: 2, mutexes: [m1]}}',
      'upgradePolicyClusters:',
      ...Array.from({ length: 1000 }, (_, i) => `- {name: c${i}, upgradePolicy: *std}`),
    ].join('\n');
    const parsed = parseYamlText(text);
    expect(parsed.ok).toBe(true);
    const clusters = parsed.ok ? (parsed.value as { upgradePolicyClusters: { upgradePolicy: unknown }[] }).upgradePolicyClusters : [];
    expect(clusters).toHaveLength(1000);
    expect(clusters[999]?.upgradePolicy).toEqual({
      workloads: ['wl'],
      schedule: '0 13 * * 1-5',
      conditions: { soakDays: 2, mutexes: ['m1'] },
    });
  });

  it('counts aliases against maxAliases', () => {
    const text = 'a: &a [1]\nb: [*a, *a, *a]\n';
    expect(parseYamlText(text, limits({ maxAliases: 3 })).ok).toBe(true);
    expect(problemsOf(parseYamlText(text, limits({ maxAliases: 2 })))).toEqual([
      { path: '(document)', message: 'more than 2 aliases of lists and mappings (the limit), at b[2]' },
    ]);
  });

  it('reports an alias to an unknown anchor and a recursive alias as problems of the document', () => {
    expect(problemsOf(parseYamlText('a: 1\nb: *nope\n'))).toEqual([
      { path: '(document)', message: 'invalid YAML: unidentified alias "nope" at line 2' },
    ]);
    expect(problemsOf(parseYamlText('a: &a [1, *a]\n'))).toEqual([
      { path: '(document)', message: 'an alias refers to a list or mapping that contains it (a recursive alias), at a[1]' },
    ]);
  });
});

describe('limits: size, depth, values', () => {
  it('refuses text over maxBytes, counting UTF-8 bytes', () => {
    expect(problemsOf(parseYamlText(`a: ${'x'.repeat(100)}`, limits({ maxBytes: 100 })))).toEqual([
      { path: '(document)', message: 'the text is 103 bytes, over the limit of 100 bytes' },
    ]);
    // 60 characters, 117 bytes
    expect(parseYamlText(`a: ${'é'.repeat(57)}`, limits({ maxBytes: 117 })).ok).toBe(true);
    expect(parseYamlText(`a: ${'é'.repeat(57)}`, limits({ maxBytes: 116 })).ok).toBe(false);
    const big = `a: "${'x'.repeat(DOCUMENT_LIMITS.maxBytes)}"`;
    expect(problemsOf(parseYamlText(big))[0]?.message).toBe(
      'the text is 5.0 MB (5,242,885 bytes), over the limit of 5.0 MB (5,242,880 bytes)',
    );
    expect(parseJsonText(`[${big.slice(3)}]`).ok).toBe(false);
  });

  it('counts the bytes of text that is ASCII first and then not, at the limit and one over', () => {
    // 94 ASCII characters, then 5 of 2 bytes (é) and 1 of 3 (€): 107 bytes in 100 characters
    const text = `["${'x'.repeat(86)}", "ééééé€"]`;
    expect(text.length).toBe(100);
    expect(parseJsonText(text, limits({ maxBytes: 107 })).ok).toBe(true);
    expect(problemsOf(parseJsonText(text, limits({ maxBytes: 106 })))).toEqual([
      { path: '(document)', message: 'the text is 107 bytes, over the limit of 106 bytes' },
    ]);
    // all ASCII, between a third of the limit and the limit: within it
    expect(parseJsonText(`["${'x'.repeat(100)}"]`, limits({ maxBytes: 104 })).ok).toBe(true);
  });

  it('allows maxDepth nested lists and mappings, not one more, in YAML and JSON', () => {
    expect(parseYamlText(nested(64)).ok).toBe(true);
    expect(parseJsonText(nested(64, '[', ']')).ok).toBe(true);
    const deeper = 'a:\n' + Array.from({ length: 64 }, (_, i) => `${' '.repeat(2 * (i + 1))}k${i}:`).join('\n') + ' 1\n';
    expect(problemsOf(parseYamlText(deeper))).toEqual([
      { path: '(document)', message: 'lists and mappings nested deeper than 64 levels (the limit), at line 65' },
    ]);
    expect(problemsOf(parseJsonText(`{"a":\n${nested(65)}}`))).toEqual([
      { path: '(document)', message: 'lists and objects nested deeper than 64 levels (the limit), at line 2' },
    ]);
  });

  it('answers deeply nested text with a problem, not a stack overflow', () => {
    expect(problemsOf(parseYamlText(nested(200_000)))[0]?.message).toMatch(/nested deeper than 64 levels/);
    // unclosed: JSON.parse gives no position, and finding it must not recurse 200,000 deep
    expect(problemsOf(parseJsonText('['.repeat(200_000)))[0]?.message).toMatch(/nested deeper than 64 levels/);
  });

  it('counts depth through aliases', () => {
    const anchor = `a: &a ${nested(40)}`;
    const use = `b: ${'['.repeat(30)}*a${']'.repeat(30)}`;
    const problems = problemsOf(parseYamlText(`${anchor}\n${use}\n`));
    expect(problems[0]?.message).toMatch(/^an alias nests lists and mappings deeper than 64 levels \(the limit\), at b(\[0\]){30}$/);
  });

  it('refuses more than maxNodes values in YAML, with or without anchors, saying where', () => {
    // the mapping, a's list and its 3 items, b's mapping and its c: d (keys are not values): 7
    const plain = 'a: [1, 2, "&3"]\nb: {c: d}\n';
    expect(parseYamlText(plain, limits({ maxNodes: 7 })).ok).toBe(true);
    expect(problemsOf(parseYamlText(plain, limits({ maxNodes: 6 })))).toEqual([
      { path: '(document)', message: 'more than 6 values, aliases expanded (the limit), at b.c' },
    ]);
    const noAmpersand = plain.replace('&', '');
    expect(parseYamlText(noAmpersand, limits({ maxNodes: 7 })).ok).toBe(true);
    expect(problemsOf(parseYamlText(noAmpersand, limits({ maxNodes: 6 })))).toEqual([
      { path: '(document)', message: 'more than 6 values, aliases expanded (the limit), at b.c' },
    ]);
    expect(problemsOf(parseYamlText(noAmpersand, limits({ maxDepth: 1 })))[0]?.message).toMatch(/nested deeper than 1 levels/);
  });

  it('refuses more than maxNodes values', () => {
    const text = `[${Array(50).fill('1').join(',')}]`;
    expect(parseJsonText(text, limits({ maxNodes: 51 })).ok).toBe(true);
    expect(problemsOf(parseJsonText(text, limits({ maxNodes: 50 })))).toEqual([
      { path: '(document)', message: 'more than 50 values (the limit), at [49]' },
    ]);
  });
});

describe('syntax', () => {
  it('gives the line of a YAML or JSON syntax error', () => {
    expect(problemsOf(parseYamlText('a:\n  b: 1\n c: 2\n'))[0]).toMatchObject({ path: 'line 3', line: 3 });
    expect(problemsOf(parseJsonText('{\n"a": 1,\n}'))[0]).toMatchObject({ path: 'line 3', line: 3 });
    expect(problemsOf(parseJsonText('{\n"a": [1,\n'))[0]).toMatchObject({
      path: 'line 3',
      message: expect.stringMatching(/^invalid JSON/) as unknown,
    });
  });

  it('reads YAML 1.2 core scalars; empty text is null; __proto__ is an ordinary key', () => {
    expect(parseYamlText('a: yes\nb: 2021-08-30\nc: 0x1F\nd: ~\ne: 4.12.17\n')).toEqual({
      ok: true,
      value: { a: 'yes', b: '2021-08-30', c: 31, d: null, e: '4.12.17' },
    });
    expect(parseYamlText('')).toEqual({ ok: true, value: null });
    const parsed = parseYamlText('__proto__: {polluted: true}\n');
    const value = parsed.ok ? (parsed.value as Record<string, unknown>) : {};
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

/** Values as JSON.parse made them: the value itself, each list item, each member's value. */
function countValues(v: unknown): number {
  if (typeof v !== 'object' || v === null) return 1;
  const children = Array.isArray(v) ? (v as unknown[]) : Object.values(v);
  return children.reduce((sum: number, child) => sum + countValues(child), 1);
}

/** Nesting of lists and objects in a parsed value (a scalar is 0). */
function depthOf(v: unknown): number {
  if (typeof v !== 'object' || v === null) return 0;
  const children = Array.isArray(v) ? (v as unknown[]) : Object.values(v);
  return 1 + children.reduce((max: number, child) => Math.max(max, depthOf(child)), 0);
}

describe('parseJsonText: the scan before JSON.parse', () => {
  // strings full of what would be structure outside them: brackets, quotes, escapes, colons, commas
  const tricky = [
    String.raw`["\\\"[[[", [[1]]]`, // the string is \"[[[ : an escaped backslash, then an escaped quote
    String.raw`{"a\\": "[[[\\", "b": [[{}]]}`, // strings ending in an escaped backslash: \\" closes them
    String.raw`{"\u005c": "\"", "k": [[true, false, null]]}`, // \u005c is a backslash written as an escape
    String.raw`{"é😀": "😀[{\"", "ключ": ["日本\ud83d\ude00", {"x": [-1.5e+3, 0, 2E-2]}]}`,
    '[ "," , ":" , "]" , "}" , {"]": "["} , [ ] , { } , "" ]',
    ' \n\t{ "a" : [ 1 , [ 2 , [ 3 ] ] ] , "b" : { "c" : { } } }\r\n',
    '[[[[[[[[[[]]]]]]]]]]',
    '"just a string with [[[ and {{{"',
    '42',
    '{"dup": 1, "dup": [2, 3]}',
  ];

  it.each(tricky)('counts values and depth as JSON.parse sees them, strings skipped: %s', (text) => {
    const value = JSON.parse(text) as unknown;
    const depth = depthOf(value);
    const values = countValues(value);
    const dupExtra = text.startsWith('{"dup"') ? 1 : 0; // a duplicate key's first value counts too
    expect(parseJsonText(text, limits({ maxDepth: depth, maxNodes: values + dupExtra }))).toEqual({ ok: true, value });
    if (depth > 0) {
      expect(problemsOf(parseJsonText(text, limits({ maxDepth: depth - 1 })))[0]?.message).toMatch(
        new RegExp(`^lists and objects nested deeper than ${depth - 1} levels \\(the limit\\), at line \\d+$`),
      );
    }
    expect(problemsOf(parseJsonText(text, limits({ maxNodes: values + dupExtra - 1 })))[0]?.message).toMatch(
      new RegExp(`^more than ${values + dupExtra - 1} values \\(the limit\\), at `),
    );
  });

  it('says where the value over the limit is, by keys and positions', () => {
    const text = '{"a": {"b\\"c": [1, "x,]", {"d": [true]}]}, "z": 0}';
    // values: the root, a, b"c, 1, "x,]", the object, d, true, z
    expect(problemsOf(parseJsonText(text, limits({ maxNodes: 6 })))[0]?.message).toBe('more than 6 values (the limit), at a.b"c[2].d');
    expect(problemsOf(parseJsonText(text, limits({ maxNodes: 7 })))[0]?.message).toBe('more than 7 values (the limit), at a.b"c[2].d[0]');
    expect(problemsOf(parseJsonText(text, limits({ maxNodes: 8 })))[0]?.message).toBe('more than 8 values (the limit), at z');
    expect(problemsOf(parseJsonText(text, limits({ maxNodes: 0 })))[0]?.message).toBe('more than 0 values (the limit), at (document)');
    expect(parseJsonText(text, limits({ maxNodes: 9 })).ok).toBe(true);
  });

  it('leaves unterminated strings and other syntax errors to JSON.parse', () => {
    expect(scanJson('["abc\\"]', 8, 100)).toEqual({ ok: true }); // the string never ends
    expect(problemsOf(parseJsonText('["abc\\"]'))[0]?.message).toMatch(/^invalid JSON/);
    expect(problemsOf(parseJsonText('{"a" 1}'))[0]?.message).toMatch(/^invalid JSON/);
  });

  it('refuses a million values and 1 MB of nesting by the scan, before JSON.parse', () => {
    const many = `[${Array(1_000_001).fill('0').join(',')}]`;
    expect(problemsOf(parseJsonText(many))).toEqual([
      { path: '(document)', message: 'more than 1,000,000 values (the limit), at [999999]' },
    ]);
    expect(scanJson('{"a":'.repeat(1_000_000), 64, 1_000_000)).toEqual({ ok: false, limit: 'depth', offset: 64 * 5 });
  });
});

// Label selectors as kubectl reads them: table tests of parsing, matching and errors, and
// properties — the printed form parses back to the same requirements, `notin` is the
// complement of `in` on clusters having the key, and `!=`/`notin` hold where the key is absent.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchesLabels, parseLabelSelector, printLabelSelector, type LabelRequirement, type LabelSelector } from './label-selector';
import { labelKeyProblem, labelValueProblem } from './label-syntax';

const parse = (text: string): LabelSelector => {
  const result = parseLabelSelector(text);
  if (!result.ok) throw new Error(result.message);
  return result.selector;
};

const errorOf = (text: string): string => {
  const result = parseLabelSelector(text);
  if (result.ok) throw new Error(`'${text}' parsed: ${JSON.stringify(result.selector)}`);
  return result.message;
};

describe('parseLabelSelector', () => {
  it.each<[string, LabelRequirement[]]>([
    ['', []],
    ['   ', []],
    ['env=prod', [{ key: 'env', operator: '=', values: ['prod'] }]],
    ['env==prod', [{ key: 'env', operator: '=', values: ['prod'] }]],
    ['env != prod', [{ key: 'env', operator: '!=', values: ['prod'] }]],
    ['env=', [{ key: 'env', operator: '=', values: [''] }]],
    ['tier in (web, db)', [{ key: 'tier', operator: 'in', values: ['db', 'web'] }]],
    ['tier notin (db)', [{ key: 'tier', operator: 'notin', values: ['db'] }]],
    ['tier in (db,db)', [{ key: 'tier', operator: 'in', values: ['db'] }]],
    ['tier in ()', [{ key: 'tier', operator: 'in', values: [''] }]],
    ['tier in (a,)', [{ key: 'tier', operator: 'in', values: ['', 'a'] }]],
    ['team', [{ key: 'team', operator: 'exists', values: [] }]],
    ['!team', [{ key: 'team', operator: 'notexists', values: [] }]],
    ['! team', [{ key: 'team', operator: 'notexists', values: [] }]],
    ['env=in', [{ key: 'env', operator: '=', values: ['in'] }]],
    ['in in (notin)', [{ key: 'in', operator: 'in', values: ['notin'] }]],
    [
      'example.com/owner=sre,region in (eu-west-1),!legacy',
      [
        { key: 'example.com/owner', operator: '=', values: ['sre'] },
        { key: 'region', operator: 'in', values: ['eu-west-1'] },
        { key: 'legacy', operator: 'notexists', values: [] },
      ],
    ],
  ])('%j', (text, requirements) => {
    expect(parse(text).requirements).toEqual(requirements);
  });

  it('keeps the text as written, trimmed', () => {
    expect(parse('  env==prod ').text).toBe('env==prod');
  });

  it.each([
    ['env=prod,', 'at character 10: expected a label key, found the end of the selector'],
    [',env=prod', "at character 1: expected a label key, found ','"],
    ['env=prod team', "at character 10: expected ',' or the end of the selector, found 'team'"],
    ['env=prod=x', "at character 9: expected ',' or the end of the selector, found '='"],
    ['tier in web', "at character 9: expected '(' and a list of values, found 'web'"],
    ['tier in (web', "at character 13: expected ',' or ')', found the end of the selector"],
    ['tier in (web db)', "at character 14: expected ',' or ')', found 'db'"],
    ['env prod', "at character 5: expected '=', '==', '!=', 'in', 'notin', ',' or the end of the selector, found 'prod'"],
    ['!env=prod', "at character 5: expected ',' or the end of the selector, found '='"],
    ['replicas>2', "at character 9: '>' is not a label selector operator (use =, ==, !=, in, notin, key or !key)"],
    ['Env_=x', "at character 1: 'Env_' is not a valid label key: the name must consist of alphanumeric"],
    ['Example.com/x=y', "at character 1: 'Example.com/x' is not a valid label key: the prefix must be a DNS subdomain"],
    ['env=-prod', "at character 5: '-prod' is not a valid label value"],
    [`env=${'v'.repeat(64)}`, 'a label value must be at most 63 characters'],
    [`${'k'.repeat(64)}=v`, 'the name must be at most 63 characters'],
    ['/x=y', 'the prefix before / must not be empty'],
    ['example.com/=y', 'the name after / must not be empty'],
  ])('refuses %j', (text, message) => {
    expect(errorOf(text)).toContain(message);
  });

  it('refuses a selector longer than the limit without parsing it', () => {
    expect(errorOf(`a=${'b,a=b'.repeat(1000)}`)).toBe('a selector must be at most 4096 characters');
  });
});

describe('matchesLabels', () => {
  const prod = { env: 'prod', tier: 'web', 'example.com/owner': 'sre' };
  const bare = {};
  it.each<[string, Record<string, string>, boolean]>([
    ['', bare, true],
    ['env=prod', prod, true],
    ['env=prod', bare, false],
    ['env!=prod', prod, false],
    ['env!=stage', prod, true],
    ['env!=prod', bare, true],
    ['tier in (web,db)', prod, true],
    ['tier in (db)', prod, false],
    ['tier notin (db)', prod, true],
    ['tier notin (db)', bare, true],
    ['tier notin (web)', prod, false],
    ['env', prod, true],
    ['env', bare, false],
    ['!env', prod, false],
    ['!env', bare, true],
    ['env=prod,tier=db', prod, false],
    ['env=prod,example.com/owner=sre', prod, true],
    ['env=', { env: '' }, true],
    ['constructor', bare, false],
    ['!toString', bare, true],
  ])('%j on %j: %s', (text, labels, expected) => {
    expect(matchesLabels(parse(text), labels)).toBe(expected);
  });
});

const nameChars = fc.constantFrom(...'abcXYZ019-_.'.split(''));
const alnum = fc.constantFrom(...'abcXYZ019'.split(''));
const labelName = fc
  .tuple(alnum, fc.array(nameChars, { maxLength: 6 }), alnum)
  .map(([first, middle, last]) => `${first}${middle.join('')}${last}`);
const labelValue = fc.oneof(fc.constant(''), labelName, fc.constantFrom('in', 'notin', 'a'));
const labelKey = fc.oneof(
  labelName,
  fc.constantFrom('in', 'notin', 'a'),
  labelName.map((name) => `example.com/${name.toLowerCase()}`),
);
const requirement: fc.Arbitrary<LabelRequirement> = fc.oneof(
  fc.record({ key: labelKey, operator: fc.constantFrom('=' as const, '!=' as const), values: labelValue.map((v) => [v]) }),
  fc.record({
    key: labelKey,
    operator: fc.constantFrom('in' as const, 'notin' as const),
    values: fc.uniqueArray(labelValue, { minLength: 1, maxLength: 4 }).map((vs) => [...vs].sort()),
  }),
  fc.record({ key: labelKey, operator: fc.constantFrom('exists' as const, 'notexists' as const), values: fc.constant([]) }),
);

describe('label selector properties', () => {
  it('the printed form parses back to the same requirements', () => {
    fc.assert(
      fc.property(fc.array(requirement, { maxLength: 5 }), (requirements) => {
        expect(parse(printLabelSelector(requirements)).requirements).toEqual(requirements);
      }),
    );
  });

  it('notin is the complement of in on labels having the key, and holds where the key is absent', () => {
    fc.assert(
      fc.property(
        labelKey,
        fc.uniqueArray(labelName, { minLength: 1, maxLength: 3 }),
        fc.dictionary(labelKey, labelValue, { maxKeys: 4 }),
        labelValue,
        (key, values, others, value) => {
          const inSelector = parse(`${key} in (${values.join(',')})`);
          const notinSelector = parse(`${key} notin (${values.join(',')})`);
          const withKey = { ...others, [key]: value };
          expect(matchesLabels(notinSelector, withKey)).toBe(!matchesLabels(inSelector, withKey));
          const withoutKey = Object.fromEntries(Object.entries(others).filter(([k]) => k !== key));
          expect(matchesLabels(notinSelector, withoutKey)).toBe(true);
          expect(matchesLabels(inSelector, withoutKey)).toBe(false);
        },
      ),
    );
  });

  it('a comma is AND: a selector matches exactly when each of its requirements alone does', () => {
    fc.assert(
      fc.property(
        fc.array(requirement, { minLength: 1, maxLength: 4 }),
        fc.dictionary(labelKey, labelValue, { maxKeys: 5 }),
        (requirements, labels) => {
          const whole = matchesLabels(parse(printLabelSelector(requirements)), labels);
          const each = requirements.every((r) => matchesLabels(parse(printLabelSelector([r])), labels));
          expect(whole).toBe(each);
        },
      ),
    );
  });

  it('every key and value the generators make passes the syntax rules (the generators are honest)', () => {
    fc.assert(
      fc.property(labelKey, labelValue, (key, value) => {
        expect(labelKeyProblem(key)).toBeNull();
        expect(labelValueProblem(value)).toBeNull();
      }),
    );
  });
});

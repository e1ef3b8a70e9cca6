/**
 * Kubernetes label selectors as `kubectl get -l` reads them: `env=prod`, `env==prod`,
 * `env!=prod`, `tier in (web,db)`, `tier notin (db)`, `team` (the key exists), `!team` (it does
 * not); a comma means AND; the empty selector matches every cluster. `!=` and `notin` match
 * clusters without the key, as in Kubernetes. One pass over the text, errors name the character
 * position (counted from 1). Pure: the engine, the services and the browser editors share it.
 */
import { labelKeyProblem, labelValueProblem } from './label-syntax';

export type LabelSelector = { readonly text: string; readonly requirements: readonly LabelRequirement[] };
export type LabelRequirement = { key: string; operator: 'in' | 'notin' | 'exists' | 'notexists' | '=' | '!='; values: readonly string[] };

/** Longer selectors are refused before parsing (a selector is typed or stored, never generated). */
export const MAX_SELECTOR_LENGTH = 4096;

type TokenKind = 'identifier' | '!' | '=' | '==' | '!=' | ',' | '(' | ')' | '<' | '>' | 'end';
type Token = { kind: TokenKind; text: string; position: number };

/** Characters that end an identifier (as the Kubernetes lexer reads them). */
const SPECIAL = new Set(['!', '=', ',', '(', ')', '<', '>']);
const WHITESPACE = /\s/;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (WHITESPACE.test(ch)) {
      i++;
      continue;
    }
    const position = i + 1;
    if (ch === '=' || ch === '!') {
      if (text[i + 1] === '=') {
        tokens.push({ kind: ch === '=' ? '==' : '!=', text: `${ch}=`, position });
        i += 2;
      } else {
        tokens.push({ kind: ch, text: ch, position });
        i++;
      }
      continue;
    }
    if (SPECIAL.has(ch)) {
      tokens.push({ kind: ch as TokenKind, text: ch, position });
      i++;
      continue;
    }
    let end = i;
    while (end < text.length && !SPECIAL.has(text[end] as string) && !WHITESPACE.test(text[end] as string)) end++;
    tokens.push({ kind: 'identifier', text: text.slice(i, end), position });
    i = end;
  }
  tokens.push({ kind: 'end', text: '', position: text.length + 1 });
  return tokens;
}

class SelectorError extends Error {}

function describeToken(token: Token): string {
  return token.kind === 'end' ? 'the end of the selector' : `'${token.text}'`;
}

function fail(token: Token, expected: string): never {
  throw new SelectorError(`at character ${token.position}: expected ${expected}, found ${describeToken(token)}`);
}

class Parser {
  private index = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.index] as Token;
  }

  private next(): Token {
    const token = this.peek();
    if (token.kind !== 'end') this.index++;
    return token;
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    if (this.peek().kind === 'end') return requirements;
    for (;;) {
      requirements.push(this.requirement());
      const separator = this.next();
      if (separator.kind === 'end') return requirements;
      if (separator.kind !== ',') fail(separator, "',' or the end of the selector");
    }
  }

  private key(): string {
    const token = this.next();
    if (token.kind !== 'identifier') fail(token, 'a label key');
    const problem = labelKeyProblem(token.text);
    if (problem) throw new SelectorError(`at character ${token.position}: '${token.text}' is not a valid label key: ${problem}`);
    return token.text;
  }

  private value(token: Token): string {
    const problem = labelValueProblem(token.text);
    if (problem) throw new SelectorError(`at character ${token.position}: '${token.text}' is not a valid label value: ${problem}`);
    return token.text;
  }

  private requirement(): LabelRequirement {
    if (this.peek().kind === '!') {
      this.next();
      return { key: this.key(), operator: 'notexists', values: [] };
    }
    const key = this.key();
    const operator = this.peek();
    switch (operator.kind) {
      case ',':
      case 'end':
        return { key, operator: 'exists', values: [] };
      case '=':
      case '==':
      case '!=':
        this.next();
        return { key, operator: operator.kind === '!=' ? '!=' : '=', values: [this.exactValue()] };
      case '<':
      case '>':
        throw new SelectorError(
          `at character ${operator.position}: '${operator.text}' is not a label selector operator (use =, ==, !=, in, notin, key or !key)`,
        );
      case 'identifier':
        if (operator.text === 'in' || operator.text === 'notin') {
          this.next();
          return { key, operator: operator.text, values: this.valueSet() };
        }
        return fail(operator, "'=', '==', '!=', 'in', 'notin', ',' or the end of the selector");
      default:
        return fail(operator, "'=', '==', '!=', 'in', 'notin', ',' or the end of the selector");
    }
  }

  /** After `=`, `==` or `!=`: a value, or nothing (the empty value) before `,` or the end. */
  private exactValue(): string {
    const token = this.peek();
    if (token.kind === ',' || token.kind === 'end') return '';
    if (token.kind !== 'identifier') fail(token, 'a label value');
    this.next();
    return this.value(token);
  }

  /** `(v1, v2, ...)`: an empty slot is the empty value, as in Kubernetes (`()` is the set {""}). */
  private valueSet(): string[] {
    const open = this.next();
    if (open.kind !== '(') fail(open, "'(' and a list of values");
    const values = new Set<string>();
    for (;;) {
      const token = this.peek();
      if (token.kind === 'identifier') {
        this.next();
        values.add(this.value(token));
      } else if (token.kind === ',' || token.kind === ')') {
        values.add('');
      } else {
        fail(token, "a label value, ',' or ')'");
      }
      const after = this.next();
      if (after.kind === ')') break;
      if (after.kind !== ',') fail(after, "',' or ')'");
    }
    return [...values].sort();
  }
}

/** Parses a selector; on error, the message names the character position and what was expected. */
export function parseLabelSelector(text: string): { ok: true; selector: LabelSelector } | { ok: false; message: string } {
  if (text.length > MAX_SELECTOR_LENGTH) return { ok: false, message: `a selector must be at most ${MAX_SELECTOR_LENGTH} characters` };
  try {
    const requirements = new Parser(tokenize(text)).parse();
    return { ok: true, selector: { text: text.trim(), requirements } };
  } catch (error) {
    if (error instanceof SelectorError) return { ok: false, message: error.message };
    throw error;
  }
}

function hasLabel(labels: Readonly<Record<string, string>>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(labels, key);
}

/** Whether one requirement holds for a cluster's labels. */
export function matchesRequirement(requirement: LabelRequirement, labels: Readonly<Record<string, string>>): boolean {
  const present = hasLabel(labels, requirement.key);
  const value = present ? labels[requirement.key] : undefined;
  switch (requirement.operator) {
    case 'exists':
      return present;
    case 'notexists':
      return !present;
    case '=':
    case 'in':
      return present && requirement.values.includes(value as string);
    case '!=':
    case 'notin':
      return !present || !requirement.values.includes(value as string);
  }
}

/** Whether every requirement holds (the empty selector matches every set of labels). */
export function matchesLabels(selector: LabelSelector, labels: Readonly<Record<string, string>>): boolean {
  return selector.requirements.every((requirement) => matchesRequirement(requirement, labels));
}

/** The canonical text of a selector (`==` written `=`, value sets sorted); it parses back to the same requirements. */
export function printLabelSelector(requirements: readonly LabelRequirement[]): string {
  return requirements
    .map((r) => {
      switch (r.operator) {
        case 'exists':
          return r.key;
        case 'notexists':
          return `!${r.key}`;
        case '=':
        case '!=':
          return `${r.key}${r.operator}${r.values[0] ?? ''}`;
        case 'in':
        case 'notin':
          return `${r.key} ${r.operator} (${r.values.join(',')})`;
      }
    })
    .join(',');
}

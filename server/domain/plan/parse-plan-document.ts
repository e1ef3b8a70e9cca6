/**
 * Reads a plan document's text: JSON when its first non-blank character is `{` or `[`, YAML
 * otherwise (contracts/plan.md). Syntax errors carry their line number; the parsed value then
 * goes through validatePlanInput.
 */
import { parseDocument } from 'yaml';
import type { PlanParseResult, Problem } from './types';
import { validatePlanInput, type ValidateOptions } from './validate-plan-input';

function lineOfOffset(text: string, offset: number): number {
  let line = 1;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/**
 * Offset of the first JSON syntax error (the engine's message does not always carry one): a
 * minimal recursive-descent scan of RFC 8259 JSON.
 */
export function findJsonErrorOffset(text: string): number {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\r\n'.includes(text[i] as string)) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const literal = (word: string) => {
    if (text.startsWith(word, i)) i += word.length;
    else fail();
  };
  const string = () => {
    if (text[i] !== '"') fail();
    i++;
    while (i < text.length && text[i] !== '"') {
      const ch = text.charCodeAt(i);
      if (ch < 0x20) fail();
      if (text[i] === '\\') {
        i++;
        if (text[i] === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail();
          i += 4;
        } else if (!'"\\/bfnrt'.includes(text[i] ?? 'x')) fail();
      }
      i++;
    }
    if (text[i] !== '"') fail();
    i++;
  };
  const value = (): void => {
    ws();
    const ch = text[i];
    if (ch === '{') {
      i++;
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        string();
        ws();
        if (text[i] !== ':') fail();
        i++;
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') {
          i++;
          return;
        } else fail();
      }
    } else if (ch === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (;;) {
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') {
          i++;
          return;
        } else fail();
      }
    } else if (ch === '"') string();
    else if (ch === 't') literal('true');
    else if (ch === 'f') literal('false');
    else if (ch === 'n') literal('null');
    else {
      const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
      if (!m) fail();
      else i += m[0].length;
    }
  };
  try {
    value();
    ws();
    if (i < text.length) fail();
  } catch (at) {
    if (typeof at === 'number') return at;
    throw at;
  }
  return text.length;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; problem: Problem } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const lc = /line (\d+) column (\d+)/.exec(message);
    const pos = /position (\d+)/.exec(message);
    const line = lc ? Number(lc[1]) : lineOfOffset(text, pos ? Number(pos[1]) : findJsonErrorOffset(text));
    return { ok: false, problem: { path: `line ${line}`, line, message: `invalid JSON: ${message}` } };
  }
}

function parseYaml(text: string): { ok: true; value: unknown } | { ok: false; problems: Problem[] } {
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      problems: doc.errors.map((e) => {
        const line = e.linePos?.[0]?.line ?? lineOfOffset(text, e.pos[0]);
        const message = e.message.split('\n')[0] ?? e.message;
        return { path: `line ${line}`, line, message: `invalid YAML: ${message}` };
      }),
    };
  }
  try {
    return { ok: true, value: doc.toJS({ maxAliasCount: 1000 }) as unknown };
  } catch (err) {
    // unresolved aliases and alias bombs surface only when the document is converted
    const message = err instanceof Error ? err.message.split('\n')[0] : String(err);
    return { ok: false, problems: [{ path: '(document)', message: `invalid YAML: ${message}` }] };
  }
}

/** Parses and validates a plan document; `opts.now` overrides the document's `now`. */
export function parsePlanDocument(text: string, opts: ValidateOptions = {}): PlanParseResult {
  const first = /\S/.exec(text)?.[0];
  if (first === '{' || first === '[') {
    const json = parseJson(text);
    if (!json.ok) return { ok: false, problems: [json.problem] };
    return validatePlanInput(json.value, opts);
  }
  const yaml = parseYaml(text);
  if (!yaml.ok) return { ok: false, problems: yaml.problems };
  return validatePlanInput(yaml.value, opts);
}

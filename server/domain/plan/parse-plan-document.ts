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

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; problem: Problem } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const lc = /line (\d+) column (\d+)/.exec(message);
    const pos = /position (\d+)/.exec(message);
    const line = lc ? Number(lc[1]) : pos ? lineOfOffset(text, Number(pos[1])) : lineOfOffset(text, text.length);
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
  return { ok: true, value: doc.toJS({ maxAliasCount: 1000 }) as unknown };
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

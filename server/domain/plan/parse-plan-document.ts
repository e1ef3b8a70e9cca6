/**
 * Reads a plan document's text: JSON when its first non-blank character is `{` or `[`, YAML
 * otherwise (contracts/plan.md), through the bounded parser (size, depth, values and aliases
 * limited). Syntax errors carry their line number; the parsed value then goes through
 * validatePlanInput.
 */
import { looksLikeJson, parseJsonText } from '../bounded-parse';
import type { PlanParseResult } from './types';
import { validatePlanInput, type ValidateOptions } from './validate-plan-input';

/**
 * Parses and validates a plan document; `opts.now` overrides the document's `now`. Asynchronous
 * because the YAML reader (js-yaml) is loaded only for a YAML document: `fleetplan plan` on JSON
 * starts without it.
 */
export async function parsePlanDocument(text: string, opts: ValidateOptions = {}): Promise<PlanParseResult> {
  const parsed = looksLikeJson(text) ? parseJsonText(text) : (await import('../bounded-parse-yaml')).parseYamlText(text);
  if (!parsed.ok) return { ok: false, problems: parsed.problems };
  return validatePlanInput(parsed.value, opts);
}

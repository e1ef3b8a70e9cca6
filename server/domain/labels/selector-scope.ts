/**
 * What a selector on a webhook or a hook narrows: it applies to a cluster whose labels the
 * selector matches. No selector (null or blank) applies to every cluster; an event that names no
 * cluster concerns the whole organization and is not narrowed. A stored selector that no longer
 * parses (it was checked on write) applies everywhere: a blocking hook must not silently stop
 * guarding upgrades, and a webhook getting more events than asked is the lesser harm. Pure.
 */
import { matchesLabels, parseLabelSelector } from './label-selector';

export function selectorApplies(selectorText: string | null | undefined, labels: Readonly<Record<string, string>> | null): boolean {
  if (!selectorText || selectorText.trim() === '' || labels === null) return true;
  const parsed = parseLabelSelector(selectorText);
  return !parsed.ok || matchesLabels(parsed.selector, labels);
}

/**
 * A cluster's labels: the provider's (OCM subscription labels, kubeconfig context labels)
 * overlaid by those operators set in fleetplan — fleetplan's value wins for a key both have, and
 * removing fleetplan's label shows the provider's again. Changes are written as kubectl reads
 * them (`fleetplan label CLUSTER env=prod team-`): `key=value` sets, `key-` removes. Pure.
 */
import { labelKeyProblem, labelValueProblem } from './label-syntax';

export type Labels = Readonly<Record<string, string>>;

/** The labels selectors see: the provider's, overlaid by fleetplan's. */
export function effectiveLabels(provider: Labels, fleetplan: Labels): Record<string, string> {
  return { ...provider, ...fleetplan };
}

/** Changes to fleetplan's labels of a cluster: keys to set (with their value) and keys to remove. */
export type LabelChanges = { set: Record<string, string>; remove: string[] };

/**
 * Parses kubectl-style changes (`key=value`, `key-`); every problem is reported, naming the
 * argument. A key both set and removed is refused (kubectl does the same).
 */
export function parseLabelChanges(args: readonly string[]): { ok: true; changes: LabelChanges } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  const set: Record<string, string> = {};
  const remove: string[] = [];
  for (const arg of args) {
    const at = arg.indexOf('=');
    if (at === -1 && arg.endsWith('-')) {
      const key = arg.slice(0, -1);
      const problem = labelKeyProblem(key);
      if (problem) problems.push(`'${arg}': ${problem}`);
      else if (!remove.includes(key)) remove.push(key);
      continue;
    }
    if (at === -1) {
      problems.push(`'${arg}': write key=value to set a label or key- to remove it`);
      continue;
    }
    const key = arg.slice(0, at);
    const value = arg.slice(at + 1);
    const problem = labelKeyProblem(key) ?? labelValueProblem(value);
    if (problem) problems.push(`'${arg}': ${problem}`);
    else if (Object.prototype.hasOwnProperty.call(set, key) && set[key] !== value) problems.push(`'${arg}': ${key} is set twice`);
    else set[key] = value;
  }
  for (const key of remove) if (Object.prototype.hasOwnProperty.call(set, key)) problems.push(`${key} is both set and removed`);
  if (args.length === 0) problems.push('name at least one change: key=value or key-');
  return problems.length > 0 ? { ok: false, problems } : { ok: true, changes: { set, remove } };
}

/** fleetplan's labels after the changes, keys sorted (the same labels in another order are no change). */
export function applyLabelChanges(current: Labels, changes: LabelChanges): Record<string, string> {
  const next: Record<string, string> = { ...current };
  for (const key of changes.remove) delete next[key];
  Object.assign(next, changes.set);
  return Object.fromEntries(Object.entries(next).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Only the labels a selector can name (a key outside Kubernetes' syntax can never be selected, so dropping it changes no match). */
export function selectableLabels(labels: Labels): Record<string, string> {
  return Object.fromEntries(Object.entries(labels).filter(([key]) => labelKeyProblem(key) === null));
}

/**
 * What Kubernetes accepts as a label key and a label value (apimachinery's IsQualifiedName and
 * IsValidLabelValue), shared by the selector parser, the plan document and the label editors so
 * that a label fleetplan stores can always be selected. Pure.
 */

/** The name part of a key, and every non-empty value: alphanumeric at both ends, `-_.` inside. */
const NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
/** A DNS-1123 subdomain: lowercase labels separated by dots. */
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export const MAX_LABEL_NAME_LENGTH = 63;
export const MAX_LABEL_PREFIX_LENGTH = 253;
export const MAX_LABEL_VALUE_LENGTH = 63;

const NAME_RULE = 'alphanumeric characters, -, _ or . and must start and end with an alphanumeric character';

/** Why `key` is not a label key (`[prefix/]name`), or null when it is. */
export function labelKeyProblem(key: string): string | null {
  if (key === '') return 'a label key must not be empty';
  const slash = key.indexOf('/');
  const prefix = slash === -1 ? undefined : key.slice(0, slash);
  const name = slash === -1 ? key : key.slice(slash + 1);
  if (prefix !== undefined) {
    if (prefix === '') return 'the prefix before / must not be empty';
    if (prefix.length > MAX_LABEL_PREFIX_LENGTH) return `the prefix must be at most ${MAX_LABEL_PREFIX_LENGTH} characters`;
    if (!DNS_SUBDOMAIN.test(prefix)) return 'the prefix must be a DNS subdomain (lowercase a-z, 0-9, - and ., e.g. example.com)';
  }
  if (name === '') return 'the name after / must not be empty';
  if (name.length > MAX_LABEL_NAME_LENGTH) return `the name must be at most ${MAX_LABEL_NAME_LENGTH} characters`;
  if (!NAME.test(name)) return `the name must consist of ${NAME_RULE}`;
  return null;
}

/** Why `value` is not a label value, or null when it is (the empty value is allowed). */
export function labelValueProblem(value: string): string | null {
  if (value === '') return null;
  if (value.length > MAX_LABEL_VALUE_LENGTH) return `a label value must be at most ${MAX_LABEL_VALUE_LENGTH} characters`;
  if (!NAME.test(value)) return `a label value must be empty or consist of ${NAME_RULE}`;
  return null;
}

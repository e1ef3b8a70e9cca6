/**
 * The rule every name a person or a file gives must pass (cluster, sector, workload, mutex,
 * user, token, webhook and graph names): names are shown in tables, logs, audit entries and
 * exported files, so they must not carry characters that are invisible or that change how the
 * text around them is displayed. Refused: control characters (C0, DEL, C1: NUL, newlines,
 * escape sequences), bidirectional controls (a U+202E in a name can make `prod` display as
 * something else in the audit log), the line and paragraph separators, lone surrogates (not
 * text: they cannot be encoded as UTF-8 and break exports), and whitespace at either end (two
 * names that look the same). Pure: the browser editor, tRPC and the CLI share it.
 */

/** What a refused character is, for the message. */
function classify(code: number): string | null {
  if (code <= 0x1f || code === 0x7f) return 'a control character';
  if (code >= 0x80 && code <= 0x9f) return 'a control character';
  if ((code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069) || code === 0x200e || code === 0x200f || code === 0x061c) {
    return 'a bidirectional control character';
  }
  if (code === 0x2028 || code === 0x2029) return 'a line separator';
  return null;
}

/** `U+202E`: the character's code in the notation people look up. */
export function codePointLabel(code: number): string {
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

const WHITESPACE = /\s/;

/** Whether the UTF-16 unit is whitespace as `\s` says; printable ASCII other than the space, without the regex. */
function isWhitespace(code: number): boolean {
  if (code > 0x20 && code < 0x7f) return false;
  return WHITESPACE.test(String.fromCharCode(code));
}

/**
 * Why `name` is not a valid name, or null when it is. Positions count characters from 1 (a
 * character outside the Basic Multilingual Plane counts once). Emptiness is the caller's rule:
 * an empty string passes here.
 */
export function identifierProblem(name: string): string | null {
  let position = 0;
  for (let i = 0; i < name.length; i++) {
    position++;
    const code = name.charCodeAt(i);
    // printable ASCII (most names, entirely): nothing below can refuse it
    if (code >= 0x20 && code < 0x7f) continue;
    if (code >= 0xd800 && code <= 0xdfff) {
      const next = name.charCodeAt(i + 1);
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        i++; // a well-formed pair (high, then low): one character
        continue;
      }
      return `contains a lone surrogate ${codePointLabel(code)} at position ${position} (not valid text)`;
    }
    const kind = classify(code);
    if (kind) return `contains ${kind} ${codePointLabel(code)} at position ${position}`;
  }
  if (name.length > 0) {
    const first = name.charCodeAt(0);
    if (isWhitespace(first)) return `starts with whitespace (${codePointLabel(first)})`;
    const last = name.charCodeAt(name.length - 1);
    if (isWhitespace(last)) return `ends with whitespace (${codePointLabel(last)})`;
  }
  return null;
}

/** True when `name` passes the rule (see identifierProblem). */
export function isValidIdentifier(name: string): boolean {
  return identifierProblem(name) === null;
}

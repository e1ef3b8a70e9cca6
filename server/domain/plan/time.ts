/** Instants: strict ISO-8601 parsing and the contract's UTC output format. Pure, no clock. */

const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))?$/;

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * Parses an ISO-8601 date-time (`2021-08-30T18:00:00Z`, offsets like `+02:00`, optional seconds
 * and fraction; no zone means UTC) to epoch milliseconds, or null when it is not one.
 */
export function parseInstant(text: unknown): number | null {
  if (typeof text !== 'string') return null;
  const known = parsedInstants.get(text);
  if (known !== undefined) return known;
  const parsed = parseInstantText(text);
  remember(parsedInstants, text, parsed);
  return parsed;
}

/**
 * The engine and the forecast parse and format the same few instants (next runs shared by every
 * cluster of a schedule, the step's now) tens of thousands of times per run; both functions are
 * pure, so their results are kept, a bounded number of them.
 */
const MEMO_LIMIT = 8192;
const parsedInstants = new Map<string, number | null>();
const formattedInstants = new Map<number, string>();

function remember<K, V>(memo: Map<K, V>, key: K, value: V): void {
  if (memo.size >= MEMO_LIMIT) memo.clear();
  memo.set(key, value);
}

function parseInstantText(text: string): number | null {
  const m = ISO_RE.exec(text.trim());
  if (!m) return null;
  const [year, month, day, hour, minute] = [m[1], m[2], m[3], m[4], m[5]].map(Number) as [number, number, number, number, number];
  const second = m[6] ? Number(m[6]) : 0;
  const millis = m[7] ? Math.floor(Number(`0.${m[7]}`) * 1000) : 0;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  let offsetMinutes = 0;
  if (m[9]) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return null;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  return utc - offsetMinutes * MINUTE_MS;
}

/** `YYYY-MM-DDTHH:MM:SSZ` (milliseconds appear only when non-zero, so no instant is lost). */
/** `2024-07-10T08:00:00Z`: to the second (what providers and the plan document carry), milliseconds dropped. */
export function formatInstantToSecond(at: number | Date): string {
  return `${new Date(at).toISOString().slice(0, 19)}Z`;
}

export function formatInstant(ms: number): string {
  const known = formattedInstants.get(ms);
  if (known !== undefined) return known;
  const iso = new Date(ms).toISOString();
  const formatted = iso.endsWith('.000Z') ? `${iso.slice(0, 19)}Z` : iso;
  remember(formattedInstants, ms, formatted);
  return formatted;
}

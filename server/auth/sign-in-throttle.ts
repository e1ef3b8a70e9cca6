// Back-off for password guessing, per account and per client address. The 5th failure of an
// account (20th of an address) blocks the key for 1 s, and every further one for twice as long as
// the previous (2 s, 4 s, ... up to 15 min). A key forgets its failures 30 min after its last one, and a
// successful sign-in clears the account's counter (not the address's: one good account must not
// reset an address that is guessing others). Counters live in the database so replicas share them.
// Pure decisions here; the caller reads and writes the rows (server/services/auth-service.ts).
import type { ThrottleRow } from '@/server/repositories/sign-in-throttle-repository';

/** longer than the longest block, so a key at the cap stays there (one guess per 15 min) */
export const THROTTLE_WINDOW_MS = 30 * 60_000;
export const THROTTLE_MAX_BLOCK_MS = 15 * 60_000;
const THROTTLE_FIRST_BLOCK_MS = 1_000;
/** failures before back-off starts: per account, and per client address (NAT, offices) */
export const FREE_FAILURES = { account: 5, address: 20 } as const;

export function accountKey(username: string): string {
  return `user:${username.toLowerCase()}`;
}

export function addressKey(address: string): string {
  return `addr:${address}`;
}

/** Milliseconds until the first of `rows` stops blocking at `now`, or 0. */
export function blockedForMs(rows: ThrottleRow[], now: Date): number {
  let wait = 0;
  for (const row of rows) {
    if (row.blockedUntil) wait = Math.max(wait, row.blockedUntil.getTime() - now.getTime());
  }
  return wait;
}

/** The row after one more failure at `now`. */
export function afterFailure(key: string, previous: ThrottleRow | undefined, now: Date, freeFailures: number): ThrottleRow {
  const fresh = !previous || now.getTime() - previous.lastFailureAt.getTime() > THROTTLE_WINDOW_MS;
  const failures = fresh ? 1 : previous.failures + 1;
  // the `freeFailures`-th failure blocks for 1 s, each further one twice as long
  const over = failures - freeFailures;
  const blockMs = over >= 0 ? Math.min(THROTTLE_FIRST_BLOCK_MS * 2 ** Math.min(over, 30), THROTTLE_MAX_BLOCK_MS) : 0;
  return { key, failures, lastFailureAt: now, blockedUntil: blockMs > 0 ? new Date(now.getTime() + blockMs) : null };
}

/**
 * The client's address. `npm start` (scripts/serve.mjs) sets X-Forwarded-For to the connected
 * socket's address, replacing what a client sent, unless FLEETPLAN_TRUST_PROXY=1 says a reverse
 * proxy writes it; the right-most entry is what the nearest hop saw. Without trust only a single
 * entry counts (a server run some other way, e.g. `next dev`, may pass a client's header on).
 */
export function clientAddressOf(headers: Headers, trustProxy: boolean): string {
  const hops = (headers.get('x-forwarded-for') ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter((h) => h.length > 0 && h.length <= 64);
  if (hops.length === 0) return 'unknown';
  if (trustProxy || hops.length === 1) return hops[hops.length - 1]!;
  return 'unknown';
}

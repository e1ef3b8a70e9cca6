// Password hashing: scrypt (memory-hard) with a per-user random salt. The stored string carries
// its own parameters so they can be raised later without breaking existing hashes.
// @see https://nodejs.org/api/crypto.html#cryptoscryptpassword-salt-keylen-options-callback
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** OWASP's scrypt floor is N=2^17,r=8,p=1; 2^15 keeps a login under ~100 ms on a 2-core box. */
export const SCRYPT_PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_BYTES = 32;
const SALT_BYTES = 16;
export const MAX_PASSWORD_LENGTH = 256;
/** counted after trimming spaces; see password-policy.ts */
export const MIN_PASSWORD_LENGTH = 12;

function deriveKey(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, KEY_BYTES, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** `scrypt$N$r$p$<salt b64>$<key b64>` */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await deriveKey(password, salt, SCRYPT_PARAMS);
  const { N, r, p } = SCRYPT_PARAMS;
  return ['scrypt', N, r, p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** Constant-time comparison; a malformed stored hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![N, r, p].every((n) => Number.isInteger(n) && n > 0) || N > 2 ** 20 || r > 32 || p > 16) return false;
  const salt = Buffer.from(parts[4]!, 'base64');
  const expected = Buffer.from(parts[5]!, 'base64');
  if (expected.length !== KEY_BYTES || password.length > MAX_PASSWORD_LENGTH) return false;
  const actual = await deriveKey(password, salt, { N, r, p });
  return timingSafeEqual(actual, expected);
}

/** A hash no password matches, for accounts that only sign in another way (the demo user). */
export function unusablePasswordHash(): string {
  return `disabled$${randomBytes(16).toString('base64')}`;
}

/** Spend the same time as a real check so unknown usernames are not revealed by timing. */
let dummyHash: Promise<string> | undefined;
export async function burnPasswordCheck(password: string): Promise<void> {
  dummyHash ??= hashPassword('fleetplan-dummy-password');
  await verifyPassword(password, await dummyHash);
}

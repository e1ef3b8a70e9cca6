// Random secrets and their at-rest form. Session and API tokens are 32 random bytes; the database
// keeps only their SHA-256, so a leaked database does not hand out live credentials.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const API_TOKEN_PREFIX = 'fp_';
/** how many characters of an API token are stored and shown to tell tokens apart */
export const API_TOKEN_SHOWN_CHARS = 10;

export function generateSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

export function generateApiToken(): { token: string; hash: string; prefix: string } {
  const token = API_TOKEN_PREFIX + generateSecret(32);
  return { token, hash: sha256Hex(token), prefix: token.slice(0, API_TOKEN_SHOWN_CHARS) };
}

/** Equal-length constant-time comparison of two strings (CSRF tokens). */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  return ab.length === bb.length && ab.length > 0 && timingSafeEqual(ab, bb);
}

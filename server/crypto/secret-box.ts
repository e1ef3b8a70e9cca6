// Secrets the server must be able to read back (webhook HMAC keys) are stored encrypted with
// AES-256-GCM under the server's secret key, so a copied database alone does not reveal them.
// Stored form: `fpenc:v1:<key id>:<iv>:<ciphertext>:<tag>` (base64url parts). The key id (first
// 8 hex digits of the key's SHA-256) lets a wrong key be named as such instead of producing
// garbage: GCM authentication refuses any other key anyway.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

export const SEALED_PREFIX = 'fpenc:v1:';

export class SecretKeyMismatchError extends Error {}

export interface SecretKey {
  bytes: Buffer;
  /** short public fingerprint of the key, stored beside each sealed value */
  id: string;
}

export function secretKeyFromBytes(bytes: Buffer): SecretKey {
  if (bytes.length !== 32) throw new Error(`a secret key has 32 bytes, not ${bytes.length}`);
  return { bytes, id: createHash('sha256').update(bytes).digest('hex').slice(0, 8) };
}

/** 32 bytes as 64 hex digits or base64/base64url; anything else is refused with a clear message. */
export function parseSecretKey(text: string, source: string): SecretKey {
  const t = text.trim();
  let bytes: Buffer | null = null;
  if (/^[0-9a-fA-F]{64}$/.test(t)) bytes = Buffer.from(t, 'hex');
  else if (/^[A-Za-z0-9+/_-]{43}=?$/.test(t)) bytes = Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (!bytes || bytes.length !== 32) {
    throw new Error(`${source} must be 32 random bytes as 64 hex digits or base64 (e.g. \`openssl rand -base64 32\`)`);
  }
  return secretKeyFromBytes(bytes);
}

export function isSealed(value: string): boolean {
  return value.startsWith(SEALED_PREFIX);
}

/** `purpose` is authenticated with the value, so a value sealed for one use does not open for another. */
export function sealSecret(key: SecretKey, plaintext: string, purpose: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key.bytes, iv);
  cipher.setAAD(Buffer.from(purpose, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const parts = [iv, ciphertext, cipher.getAuthTag()].map((b) => b.toString('base64url'));
  return `${SEALED_PREFIX}${key.id}:${parts.join(':')}`;
}

export function openSecret(key: SecretKey, sealed: string, purpose: string): string {
  if (!isSealed(sealed)) throw new Error('the value is not an encrypted secret');
  const [keyId, iv, ciphertext, tag] = sealed.slice(SEALED_PREFIX.length).split(':');
  if (!keyId || iv === undefined || ciphertext === undefined || tag === undefined) throw new Error('the encrypted secret is damaged');
  if (keyId !== key.id) {
    throw new SecretKeyMismatchError(`it was encrypted with key ${keyId}, but the server's secret key is ${key.id}`);
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', key.bytes, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(purpose, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretKeyMismatchError(`it does not decrypt with the server's secret key ${key.id} (damaged, or another key)`);
  }
}

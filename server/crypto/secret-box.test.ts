import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openSecret, parseSecretKey, sealSecret, SecretKeyMismatchError, secretKeyFromBytes } from './secret-box';

const key = secretKeyFromBytes(randomBytes(32));

describe('secret box (AES-256-GCM)', () => {
  it('round-trips, with a fresh IV each time and no plain text in the sealed form', () => {
    const a = sealSecret(key, 'the webhook secret', 'purpose');
    const b = sealSecret(key, 'the webhook secret', 'purpose');
    expect(a).not.toBe(b);
    expect(a).not.toContain('webhook');
    expect(a.startsWith(`fpenc:v1:${key.id}:`)).toBe(true);
    expect(openSecret(key, a, 'purpose')).toBe('the webhook secret');
  });

  it('refuses another key, another purpose and a tampered value instead of returning garbage', () => {
    const sealed = sealSecret(key, 'x'.repeat(40), 'purpose');
    const other = secretKeyFromBytes(randomBytes(32));
    expect(() => openSecret(other, sealed, 'purpose')).toThrow(SecretKeyMismatchError);
    expect(() => openSecret(other, sealed, 'purpose')).toThrow(`encrypted with key ${key.id}, but the server's secret key is ${other.id}`);
    expect(() => openSecret(key, sealed, 'another purpose')).toThrow(SecretKeyMismatchError);
    const parts = sealed.split(':');
    const ciphertext = Buffer.from(parts[4]!, 'base64url');
    ciphertext[0] = ciphertext[0]! ^ 1;
    parts[4] = ciphertext.toString('base64url');
    expect(() => openSecret(key, parts.join(':'), 'purpose')).toThrow(SecretKeyMismatchError);
  });

  it('parses 32-byte keys as hex or base64 and nothing else', () => {
    const bytes = randomBytes(32);
    expect(parseSecretKey(bytes.toString('hex'), 'K').id).toBe(secretKeyFromBytes(bytes).id);
    expect(parseSecretKey(bytes.toString('base64'), 'K').id).toBe(secretKeyFromBytes(bytes).id);
    expect(parseSecretKey(`${bytes.toString('base64url')}\n`, 'K').id).toBe(secretKeyFromBytes(bytes).id);
    expect(() => parseSecretKey(randomBytes(16).toString('hex'), 'K')).toThrow(/K must be 32 random bytes/);
    expect(() => parseSecretKey('not a key', 'K')).toThrow(/K must be 32 random bytes/);
  });
});

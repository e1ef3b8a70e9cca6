import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { chooseEncoding, compressJsonResponse } from './compress-response';

const bigJson = JSON.stringify({
  items: Array.from({ length: 500 }, (_, i) => ({ name: `cluster-${i}`, version: '4.13.1', healthy: true })),
});
const json = (body: string, headers: Record<string, string> = {}) =>
  new Response(body, { headers: { 'content-type': 'application/json', 'set-cookie': 'a=1', ...headers } });
const get = (acceptEncoding?: string) =>
  new Request('http://127.0.0.1/api/trpc/x', { headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} });

describe('chooseEncoding', () => {
  it.each([
    ['gzip, deflate, br', 'br'],
    ['gzip', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['br;q=0.5, gzip;q=0.8', 'gzip'],
    ['*', 'br'],
    ['identity', null],
    ['gzip;q=0', null],
    ['', null],
  ])('%j → %j', (header, expected) => expect(chooseEncoding(header)).toBe(expected));
});

describe('compressJsonResponse', () => {
  it('brotli-compresses a large JSON answer for a client accepting br, keeping status and cookies', async () => {
    const res = await compressJsonResponse(get('gzip, br'), json(bigJson));
    expect(res.headers.get('content-encoding')).toBe('br');
    expect(res.headers.get('vary')).toMatch(/Accept-Encoding/);
    expect(res.headers.get('set-cookie')).toBe('a=1');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(Number(res.headers.get('content-length'))).toBe(bytes.length);
    expect(bytes.length).toBeLessThan(bigJson.length / 5);
    expect(zlib.brotliDecompressSync(bytes).toString()).toBe(bigJson);
  });

  it('gzips for a client accepting only gzip', async () => {
    const res = await compressJsonResponse(get('gzip'), json(bigJson));
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(zlib.gunzipSync(Buffer.from(await res.arrayBuffer())).toString()).toBe(bigJson);
  });

  it.each([
    ['no Accept-Encoding', undefined, 'application/json', bigJson],
    ['identity only', 'identity', 'application/json', bigJson],
    ['a small answer', 'gzip, br', 'application/json', '{"ok":true}'],
    ['not JSON', 'gzip, br', 'text/plain', bigJson],
  ])('sends %s as it is', async (_, acceptEncoding, contentType, body) => {
    const out = await compressJsonResponse(get(acceptEncoding), new Response(body, { headers: { 'content-type': contentType } }));
    expect(out.headers.get('content-encoding')).toBeNull();
    expect(await out.text()).toBe(body);
  });

  it('never compresses an answer twice', async () => {
    const already = zlib.gzipSync(bigJson);
    const res = await compressJsonResponse(
      get('gzip'),
      new Response(new Uint8Array(already), { headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } }),
    );
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(Buffer.from(await res.arrayBuffer()).equals(already)).toBe(true);
  });
});

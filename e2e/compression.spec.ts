// tRPC JSON answers are compressed for clients that accept it (server/http/compress-response.ts:
// Next's handler behind scripts/serve.mjs sends route answers uncompressed). Over real HTTP: the
// Fleet list's JSON leaves the server as brotli or gzip, says so, and varies on Accept-Encoding.
import http from 'node:http';
import { expect, test } from '@playwright/test';
import { signIn } from './helpers';

function get(url: URL, headers: Record<string, string>): Promise<{ headers: http.IncomingHttpHeaders; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers }, (res) => {
      let bytes = 0;
      res.on('data', (d: Buffer) => (bytes += d.length));
      res.on('end', () => resolve({ headers: res.headers, bytes }));
    });
    req.on('error', reject);
  });
}

test('a large tRPC answer is compressed (br, else gzip) when the client accepts it, and sent plain when it does not', async ({
  page,
  baseURL,
}) => {
  await signIn(page);
  const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  const input = { filter: {}, sort: 'name', direction: 'asc', offset: 0, limit: 200 };
  const url = new URL(`/api/trpc/clusters.list?input=${encodeURIComponent(JSON.stringify(input))}`, baseURL);

  const plain = await get(url, { cookie, 'accept-encoding': 'identity' });
  expect(plain.headers['content-type']).toMatch(/application\/json/);
  expect(plain.headers['content-encoding']).toBeUndefined();
  expect(plain.bytes).toBeGreaterThan(10_000);

  const brotli = await get(url, { cookie, 'accept-encoding': 'gzip, deflate, br' });
  expect(brotli.headers['content-encoding']).toBe('br');
  expect(brotli.headers.vary).toMatch(/accept-encoding/i);
  expect(brotli.bytes).toBeLessThan(plain.bytes / 4);

  const gzipped = await get(url, { cookie, 'accept-encoding': 'gzip' });
  expect(gzipped.headers['content-encoding']).toBe('gzip');
  expect(gzipped.bytes).toBeLessThan(plain.bytes / 4);

  // the browser's own call decodes to the same answer
  const viaBrowser = await page.request.get(url.toString(), { headers: { 'accept-encoding': 'gzip' } });
  const body = (await viaBrowser.json()) as { result: { data: { items: unknown[] } } };
  expect(body.result.data.items.length).toBeGreaterThan(10);
});

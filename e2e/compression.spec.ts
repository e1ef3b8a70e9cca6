// tRPC JSON answers are compressed for clients that accept it (scripts/serve.mjs: Next's handler
// sends route answers uncompressed and drops a Content-Encoding a route sets). Over real HTTP: the
// Fleet list's JSON leaves the server gzipped, says so, and varies on Accept-Encoding.
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

test('a large tRPC answer is gzipped when the client accepts it, and sent plain when it does not', async ({ page, baseURL }) => {
  await signIn(page);
  const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  const input = { filter: {}, sort: 'name', direction: 'asc', offset: 0, limit: 200 };
  const url = new URL(`/api/trpc/clusters.list?input=${encodeURIComponent(JSON.stringify(input))}`, baseURL);

  const plain = await get(url, { cookie, 'accept-encoding': 'identity' });
  expect(plain.headers['content-type']).toMatch(/application\/json/);
  expect(plain.headers['content-encoding']).toBeUndefined();
  expect(plain.bytes).toBeGreaterThan(10_000);

  const gzipped = await get(url, { cookie, 'accept-encoding': 'gzip, deflate, br' });
  expect(gzipped.headers['content-encoding']).toBe('gzip');
  expect(gzipped.headers.vary).toMatch(/accept-encoding/i);
  expect(gzipped.bytes).toBeLessThan(plain.bytes / 4);

  // the browser's own call decodes to the same answer
  const viaBrowser = await page.request.get(url.toString(), { headers: { 'accept-encoding': 'gzip' } });
  const body = (await viaBrowser.json()) as { result: { data: { items: unknown[] } } };
  expect(body.result.data.items.length).toBeGreaterThan(10);
});

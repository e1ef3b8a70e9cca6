// The HTTP edge of the built app over real HTTP: pages carry a nonce-based CSP and render with no
// violations, the graph upload takes 20 MB and refuses 21 MB with 413, a chunked body over the API
// limit is refused early, and API answers carry their headers.
import http from 'node:http';
import { expect, test, type Page } from '@playwright/test';
import { signIn } from './helpers';

const MB = 1024 * 1024;

function watchCsp(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error' || /Content Security Policy/i.test(m.text())) problems.push(m.text());
  });
  return problems;
}

async function csrfToken(page: Page): Promise<string> {
  const cookie = (await page.context().cookies()).find((c) => c.name === 'fleetplan_csrf');
  return decodeURIComponent(cookie?.value ?? '');
}

/** POSTs a chunked body of `totalBytes` (no content-length) and reports the answer and how much was sent before it came. */
function postChunked(url: URL, totalBytes: number): Promise<{ status: number; body: string; sentBytes: number }> {
  return new Promise((resolve, reject) => {
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sentBytes = 0;
    const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body, sentBytes });
        req.destroy();
      });
    });
    // The server stops reading and closes once it has answered; a write racing that close fails
    // with EPIPE/ECONNRESET before the 413 is read. That is an early refusal too: report it.
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE' || err.code === 'ECONNRESET') resolve({ status: 0, body: `connection closed (${err.code})`, sentBytes });
      else reject(err);
    });
    const pump = () => {
      while (sentBytes < totalBytes && !req.destroyed) {
        sentBytes += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      if (!req.destroyed) req.end();
    };
    pump();
  });
}

test.describe('HTTP edge', () => {
  test('pages carry a fresh nonce CSP on their scripts and render without CSP violations', async ({ page }) => {
    await signIn(page);
    const problems = watchCsp(page);
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));
    });
    const nonces: string[] = [];
    for (const path of ['/fleet', '/paths', '/sectors', '/forecast', '/scheduler', '/admin']) {
      const response = await page.goto(path);
      const csp = response?.headers()['content-security-policy'] ?? '';
      expect(csp).toContain("frame-ancestors 'none'");
      const nonce = /'nonce-([^']+)'/.exec(csp)?.[1] ?? '';
      expect(nonce).not.toBe('');
      nonces.push(nonce);
      await expect(page.locator('h1').first()).toBeVisible();
      // Next put this request's nonce on its scripts (the DOM hides nonce attributes, the property keeps it)
      const scriptNonces = await page.locator('script').evaluateAll((scripts) => scripts.map((s) => (s as HTMLScriptElement).nonce));
      expect(scriptNonces.length).toBeGreaterThan(0);
      expect(new Set(scriptNonces)).toEqual(new Set([nonce]));
    }
    // the graph view and the charts (inline style attributes, client-side navigation) still work
    await page.goto('/paths');
    await page.getByLabel('From version').fill('4.6.30');
    await page.getByLabel('Target channel').selectOption('eus-4.8');
    await page.getByRole('button', { name: 'Find path' }).click();
    await expect(page.locator('.release-node.on-path')).toHaveCount(3);
    await page.getByRole('link', { name: 'Fleet' }).first().click();
    await expect(page.getByRole('heading', { name: 'Fleet', level: 1 })).toBeVisible();
    expect(new Set(nonces).size).toBe(nonces.length);
    expect(problems).toEqual([]);
  });

  test('a 20 MB graph upload is taken, a 21 MB one gets a clear 413', async ({ page }) => {
    await signIn(page);
    const headers = { 'content-type': 'application/json', 'x-csrf-token': await csrfToken(page) };
    const graph = '{"version":1,"nodes":[{"version":"4.7.1","payload":"x"},{"version":"4.7.2","payload":"y"}],"edges":[[0,1]]}';
    const upload = (bytes: number) =>
      page.request.post('/paths/upload', {
        headers,
        data: JSON.stringify({ fileName: 'padded-graph.json', name: 'e2e-padded-graph', text: graph + ' '.repeat(bytes - graph.length) }),
      });
    const ok = await upload(20 * MB);
    expect(ok.status()).toBe(200);
    const stored = (await ok.json()) as { graph: { id: number; nodeCount: number } };
    expect(stored.graph.nodeCount).toBe(2);
    const tooBig = await upload(21 * MB);
    expect(tooBig.status()).toBe(413);
    expect(((await tooBig.json()) as { error: { message: string } }).error.message).toBe(
      'The upload is over the 20 MB limit for a graph document: this one is 21 MB',
    );
    const removed = await page.request.post('/api/trpc/graphs.delete', { headers, data: { id: stored.graph.id } });
    expect(removed.status()).toBe(200);
  });

  test('a chunked 150 MB body to the public auth.login is refused with 413 long before it is all sent', async ({ baseURL }) => {
    // Every try is cut off long before 150 MB; at least one reads the 413 itself (a try can lose the
    // race between its next write and the server closing the connection after answering).
    const answers = [];
    for (let i = 0; i < 5; i++) {
      const answer = await postChunked(new URL('/api/trpc/auth.login', baseURL), 150 * MB);
      expect(answer.sentBytes).toBeLessThan(50 * MB);
      answers.push(answer);
      if (answer.status === 413) break;
    }
    const refused = answers.find((a) => a.status === 413);
    expect(refused?.body).toContain('PAYLOAD_TOO_LARGE');
  });

  test('API answers: no-store, CSP, nosniff, framing; HSTS only behind TLS', async ({ request }) => {
    const plain = await request.get('/api/healthz');
    expect(plain.headers()['cache-control']).toBe('no-store');
    expect(plain.headers()['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(plain.headers()['x-content-type-options']).toBe('nosniff');
    expect(plain.headers()['x-frame-options']).toBe('DENY');
    expect(plain.headers()['strict-transport-security']).toBeUndefined();
    const proxied = await request.get('/api/healthz', { headers: { 'x-forwarded-proto': 'https' } });
    expect(proxied.headers()['strict-transport-security']).toBe('max-age=31536000');
  });
});

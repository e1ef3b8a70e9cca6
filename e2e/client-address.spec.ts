// Sign-in throttling counts the connected socket's address, not one the client claims: `npm start`
// (scripts/serve.mjs) replaces X-Forwarded-For, so rotating a forged header does not reset the
// per-address limit. Runs over IPv6 loopback so its address (::1) is not the one the other specs
// sign in from.
import http from 'node:http';
import { expect, test } from '@playwright/test';

function failedLogin(port: number, username: string, forgedAddress: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ username, password: 'not-the-password-at-all' });
    const req = http.request(
      {
        host: '::1',
        port,
        path: '/api/trpc/auth.login',
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-forwarded-for': forgedAddress },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

test('a forged X-Forwarded-For does not escape the per-address sign-in throttle', async ({ baseURL }) => {
  const port = Number(new URL(baseURL!).port);
  const statuses: number[] = [];
  // 20 failures of one address block it (each username fails only once, so no account limit applies)
  for (let i = 0; i < 21; i++) statuses.push(await failedLogin(port, `nobody-${i}`, `198.51.100.${i + 1}`));
  expect(statuses.slice(0, 19)).toEqual(Array(19).fill(401));
  expect(statuses.slice(19)).toContain(429);
});

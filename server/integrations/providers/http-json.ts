// Minimal JSON-over-HTTP(S) client on node:http(s): per-request CA and bearer token (kubeconfig
// clusters carry their own CA, which fetch cannot take per request).
import http from 'node:http';
import https from 'node:https';
import { ProviderError } from './types';

export interface HttpJsonOptions {
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  token?: string;
  body?: unknown;
  contentType?: string;
  ca?: string | Buffer;
  insecure?: boolean;
  timeoutMs?: number;
  provider: string;
}

export function httpJson<T>(url: string, opts: HttpJsonOptions): Promise<{ status: number; body: T }> {
  const u = new URL(url);
  const lib = u.protocol === 'https:' ? https : http;
  const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = lib.request(
      u,
      {
        method: opts.method ?? 'GET',
        headers: {
          accept: 'application/json',
          ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
          ...(payload !== undefined
            ? { 'content-type': opts.contentType ?? 'application/json', 'content-length': Buffer.byteLength(payload) }
            : {}),
        },
        ...(u.protocol === 'https:' ? { ca: opts.ca, rejectUnauthorized: !opts.insecure } : {}),
        timeout: opts.timeoutMs ?? 15_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          let body: unknown = undefined;
          if (text) {
            try {
              body = JSON.parse(text);
            } catch {
              body = text;
            }
          }
          if (status >= 400) {
            const reason =
              typeof body === 'object' && body && 'reason' in body
                ? String(body.reason)
                : typeof body === 'object' && body && 'message' in body
                  ? String(body.message)
                  : text.slice(0, 200);
            reject(new ProviderError(opts.provider, `${opts.method ?? 'GET'} ${u.pathname} → HTTP ${status}: ${reason}`, status));
            return;
          }
          resolve({ status, body: body as T });
        });
      },
    );
    req.on('timeout', () => req.destroy(new ProviderError(opts.provider, `${opts.method ?? 'GET'} ${u.pathname} timed out`)));
    req.on('error', (err) =>
      reject(
        err instanceof ProviderError ? err : new ProviderError(opts.provider, `${opts.method ?? 'GET'} ${u.pathname}: ${err.message}`),
      ),
    );
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

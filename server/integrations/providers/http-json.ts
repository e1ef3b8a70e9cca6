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
  /** refuse a larger answer (bytes counted as they arrive); default MAX_RESPONSE_BYTES */
  maxResponseBytes?: number;
}

/** A provider answer larger than this is refused, whatever its Content-Length says: a page of 100 OCM clusters is ~100 kB. */
export const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

export function httpJson<T>(url: string, opts: HttpJsonOptions): Promise<{ status: number; body: T }> {
  return send<T>(url, opts, opts.body === undefined ? undefined : JSON.stringify(opts.body));
}

/** POST of a form (`application/x-www-form-urlencoded`), e.g. to an OAuth token endpoint; JSON back. */
export function httpForm<T>(
  url: string,
  form: Record<string, string>,
  opts: Omit<HttpJsonOptions, 'body' | 'contentType' | 'method'>,
): Promise<{ status: number; body: T }> {
  return send<T>(url, { ...opts, method: 'POST', contentType: 'application/x-www-form-urlencoded' }, new URLSearchParams(form).toString());
}

function send<T>(url: string, opts: HttpJsonOptions, payload: string | undefined): Promise<{ status: number; body: T }> {
  const u = new URL(url);
  const lib = u.protocol === 'https:' ? https : http;
  const limit = opts.maxResponseBytes ?? MAX_RESPONSE_BYTES;
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
        let received = 0;
        res.on('data', (c: Buffer) => {
          received += c.length;
          if (received > limit) {
            req.destroy(
              new ProviderError(opts.provider, `${opts.method ?? 'GET'} ${u.pathname}: the answer is larger than ${limit} bytes`),
            );
            return;
          }
          chunks.push(c);
        });
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
            // OCM errors carry `reason`, Kubernetes Status objects `message`, OAuth errors `error_description`
            const field = (['reason', 'message', 'error_description'] as const).find(
              (k) => typeof body === 'object' && body !== null && k in body,
            );
            const reason = field ? String((body as Record<string, unknown>)[field]) : text.slice(0, 200);
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

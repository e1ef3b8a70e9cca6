// The small HTTP plumbing the fake APIs share: JSON bodies, loopback-only listening (plain HTTP, or
// HTTPS with optional client certificates), and a registry of servers so tests can close them.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';

export interface FakeRequest {
  method: string;
  /** path without the query */
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  /** parsed JSON body; `undefined` when empty; the raw text when it is not JSON */
  body: unknown;
  rawBody: string;
  /** HTTPS with `tls.ca`: the common name of a client certificate that chains to that CA */
  clientCertCN?: string;
}

/** Serve HTTPS with this certificate; with `ca`, ask for client certificates and verify them against it. */
export interface FakeTls {
  key: string | Buffer;
  cert: string | Buffer;
  ca?: string | Buffer;
}

export interface FakeResponse {
  status: number;
  body?: unknown;
  /** close the connection without answering (an unreachable cluster) */
  drop?: boolean;
}

export interface RunningFake {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Serves `handle` on 127.0.0.1 (port 0 = any free port). Only loopback: these are test servers. */
export async function serveJson(
  handle: (req: FakeRequest) => FakeResponse | Promise<FakeResponse>,
  port = 0,
  tls?: FakeTls,
): Promise<RunningFake> {
  const listener = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let body: unknown = undefined;
      if (rawBody) {
        try {
          body = JSON.parse(rawBody);
        } catch {
          body = rawBody;
        }
      }
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      // A client certificate counts only when it chains to the configured CA (the API server's
      // --client-ca-file); the connection itself is accepted either way so bearer tokens still work.
      const socket = req.socket as Partial<TLSSocket>;
      const peer = tls?.ca && socket.authorized ? socket.getPeerCertificate?.() : undefined;
      const clientCertCN = peer && typeof peer.subject?.CN === 'string' ? peer.subject.CN : undefined;
      Promise.resolve()
        .then(() =>
          handle({
            method: req.method ?? 'GET',
            path: url.pathname,
            query: url.searchParams,
            headers: req.headers,
            body,
            rawBody,
            ...(clientCertCN ? { clientCertCN } : {}),
          }),
        )
        .then(
          (out) => {
            if (out.drop) {
              req.socket.destroy();
              return;
            }
            const text = out.body === undefined ? '' : JSON.stringify(out.body);
            res.writeHead(out.status, text ? { 'content-type': 'application/json' } : {});
            res.end(text);
          },
          (err: unknown) => {
            res.writeHead(500, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ message: err instanceof Error ? err.message : String(err) }));
          },
        );
    });
  };
  const server = tls
    ? https.createServer(
        { key: tls.key, cert: tls.cert, ...(tls.ca ? { ca: tls.ca, requestCert: true, rejectUnauthorized: false } : {}) },
        listener,
      )
    : http.createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${actual}`,
    port: actual,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** RFC 7396 JSON merge patch: objects merge key by key, `null` deletes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [key, value] of Object.entries(patch as Record<string, unknown>)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

export function bearer(req: FakeRequest): string | undefined {
  const h = req.headers.authorization;
  return h?.startsWith('Bearer ') ? h.slice('Bearer '.length) : undefined;
}

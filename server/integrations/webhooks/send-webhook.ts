// Outbound webhook requests that cannot be aimed at the server's own network (SSRF).
// The target is checked when the webhook is saved and again at every delivery: a host name is
// resolved by our own `lookup`, every address it resolves to must be public, and the connection
// goes to exactly those checked addresses (so DNS rebinding between check and connect cannot
// switch the target). Redirects are not followed. A refused target is never connected to, so the
// delivery log cannot be used to probe internal ports.
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { classifyIpAddress, isLoopbackHostname, parseIpAddress } from '@/server/domain/network/classify-address';

/** Resolves a host name to its IP addresses (tests inject a fixed table). */
export type ResolveHost = (hostname: string) => Promise<string[]>;

export const systemResolveHost: ResolveHost = async (hostname) =>
  (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

export type TargetProblem = 'not-public' | 'unresolvable';

export class WebhookTargetError extends Error {
  constructor(
    readonly problem: TargetProblem,
    /** what was found: the address range (`loopback`, `private`, …) or the host name */
    readonly detail: string,
  ) {
    super(problem === 'not-public' ? `the target is not a public address (${detail})` : `the host name '${detail}' does not resolve`);
  }
}

export interface TargetPolicy {
  /** FLEETPLAN_WEBHOOK_ALLOW_PRIVATE=1: loopback and private targets are allowed */
  allowPrivate: boolean;
  resolve?: ResolveHost;
}

/** the URL's host without IPv6 brackets */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

function refuseNonPublic(addresses: string[], policy: TargetPolicy): void {
  if (policy.allowPrivate) return;
  for (const address of addresses) {
    const c = classifyIpAddress(address);
    // an answer we cannot read is refused like a private one
    if (!c || c.kind === 'non-public') {
      throw new WebhookTargetError('not-public', c ? c.range : 'unreadable address');
    }
  }
}

async function resolveChecked(hostname: string, policy: TargetPolicy): Promise<string[]> {
  if (!policy.allowPrivate && isLoopbackHostname(hostname)) {
    throw new WebhookTargetError('not-public', 'loopback name');
  }
  let addresses: string[];
  try {
    addresses = await (policy.resolve ?? systemResolveHost)(hostname);
  } catch {
    addresses = [];
  }
  if (addresses.length === 0) throw new WebhookTargetError('unresolvable', hostname);
  refuseNonPublic(addresses, policy);
  return addresses;
}

/**
 * Checks where a URL would send requests; throws WebhookTargetError when the target is refused.
 * Returns the addresses checked (the literal address, or what the name resolves to now).
 */
export async function checkWebhookTarget(url: URL, policy: TargetPolicy): Promise<string[]> {
  const host = bareHost(url);
  if (parseIpAddress(host)) {
    refuseNonPublic([host], policy);
    return [host];
  }
  return resolveChecked(host, policy);
}

/** A `lookup` for net.connect that resolves with our resolver and refuses non-public answers. */
function pinnedLookup(policy: TargetPolicy): LookupFunction {
  return (hostname, options, callback) => {
    resolveChecked(hostname, policy).then(
      (addresses) => {
        const entries = addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
        const wanted = options.family === 4 || options.family === 6 ? entries.filter((e) => e.family === options.family) : entries;
        if (wanted.length === 0) {
          callback(new WebhookTargetError('unresolvable', `${hostname} (IPv${options.family})`), '', 0);
        } else if (options.all) {
          (callback as unknown as (err: null, all: typeof wanted) => void)(null, wanted);
        } else {
          callback(null, wanted[0]!.address, wanted[0]!.family);
        }
      },
      (err: Error) => callback(err, '', 0),
    );
  };
}

export type SendOutcome =
  /** `answer`: the response body, read only when `answerLimitBytes` asks for it */
  | { ok: true; status: number; answer?: string }
  /** `error` is what the delivery log shows: a short, fixed kind of failure (no socket details) */
  | { ok: false; status: number | null; error: string; answer?: string };

class AnswerTooLongError extends Error {
  constructor(limit: number) {
    super(`delivery failed: the answer is longer than ${limit} bytes`);
  }
}

const TLS_ERROR = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/;

function describeFailure(err: unknown, timeoutMs: number, timedOut: boolean): string {
  if (err instanceof WebhookTargetError) {
    return err.problem === 'not-public' ? 'refused: the target is not a public address' : 'refused: the host name does not resolve';
  }
  if (err instanceof AnswerTooLongError) return err.message;
  if (timedOut) return `delivery failed: no answer within ${timeoutMs / 1000} s`;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && TLS_ERROR.test(code)) return 'delivery failed: TLS handshake or certificate check failed';
  return 'delivery failed: could not connect';
}

/**
 * POSTs `body` to `rawUrl` once. Never follows redirects (a 3xx is a failure); never connects to
 * a non-public address unless the policy allows private targets.
 */
export async function sendWebhook(
  rawUrl: string,
  request: { headers: Record<string, string>; body: string },
  policy: TargetPolicy & {
    /** for the whole exchange: connecting, sending, and (when read) the answer */
    timeoutMs: number;
    /** read the answer's body, up to this many bytes (a longer one is a failure); default: not read */
    answerLimitBytes?: number;
  },
): Promise<SendOutcome> {
  const url = new URL(rawUrl);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, status: null, error: 'refused: only http and https' };
  const host = bareHost(url);
  let timedOut = false;
  try {
    // a literal address is checked here (net.connect does not call `lookup` for it)
    if (parseIpAddress(host)) refuseNonPublic([host], policy);
    else if (!policy.allowPrivate && isLoopbackHostname(host)) await resolveChecked(host, policy);
    const { status, answer } = await new Promise<{ status: number; answer?: string }>((resolve, reject) => {
      const req = (url.protocol === 'https:' ? https : http).request({
        protocol: url.protocol,
        hostname: host,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
        lookup: pinnedLookup(policy),
        // no pooled sockets: each delivery connects to freshly checked addresses
        agent: false,
      });
      const timer = setTimeout(() => {
        timedOut = true;
        req.destroy(new Error('timeout'));
      }, policy.timeoutMs);
      req.on('response', (res) => {
        const limit = policy.answerLimitBytes;
        if (limit === undefined) {
          clearTimeout(timer);
          res.destroy(); // the answer's body is not needed
          resolve({ status: res.statusCode ?? 0 });
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > limit) {
            req.destroy(new AnswerTooLongError(limit));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, answer: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', (err) => {
          clearTimeout(timer);
          reject(err);
        });
      });
      req.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      req.end(request.body);
    });
    if (status >= 200 && status < 300) return { ok: true, status, answer };
    if (status >= 300 && status < 400) return { ok: false, status, error: `HTTP ${status}: redirects are not followed`, answer };
    return { ok: false, status, error: `HTTP ${status}`, answer };
  } catch (err) {
    return { ok: false, status: null, error: describeFailure(err, policy.timeoutMs, timedOut) };
  }
}

#!/usr/bin/env node
// The HTTP server `npm start` runs (scripts/start.mjs spawns it): Next's request handler behind
// node:http, so that X-Forwarded-For says who is really connected. `next start` only fills that
// header when the request carries none, so a client could pick the address that sign-in
// throttling counts against. Here the socket's address replaces whatever the client sent, unless
// FLEETPLAN_TRUST_PROXY=1 says a reverse proxy in front of us writes the header.
//
// It also compresses the API's JSON (the Fleet list, forecast pages, activity feeds shrink 5–10
// times): Next's handler sends route answers as they are and drops a Content-Encoding a route
// sets itself, so it is done here, around the handler, with the middleware `next start` uses
// (gzip or deflate as the client accepts, JSON answers of 1 KB or more, Vary: Accept-Encoding).
// Only tRPC: pages are Next's, and a streamed answer (server-sent events) must not wait in a
// compressor's buffer.
import http from 'node:http';
import next from 'next';
import compression from 'next/dist/compiled/compression/index.js';
import { releaseCompressionStream } from 'next/dist/server/lib/release-compression-stream.js';

const port = Number(process.env.PORT || 3000);
const trustProxy = process.env.FLEETPLAN_TRUST_PROXY === '1';
const app = next({ dev: false, dir: process.cwd() });
const handle = app.getRequestHandler();
// JSON only; Next appends headers, so Content-Type may be a list (the middleware's own filter
// reads it as one string and would pass every answer through uncompressed)
const compress = compression({
  filter: (_req, res) => {
    const type = res.getHeader('Content-Type');
    return /^application\/json\b/i.test(String(Array.isArray(type) ? type[0] : (type ?? '')));
  },
});
await app.prepare();

const server = http.createServer((req, res) => {
  const socketAddress = req.socket.remoteAddress;
  if (!trustProxy || !req.headers['x-forwarded-for']) {
    if (socketAddress) req.headers['x-forwarded-for'] = socketAddress;
    else delete req.headers['x-forwarded-for'];
  }
  if (req.url?.startsWith('/api/trpc/')) {
    compress(req, res, () => {});
    // as `next start` does: a client that disconnects mid-answer would leave the zlib stream open
    res.once('close', () => {
      if (!res.writableFinished) releaseCompressionStream(res);
    });
  }
  void handle(req, res);
});
server.listen(port, () => console.log(`fleetplan: serving on port ${port}`));

// On SIGTERM/SIGINT: stop taking requests, let the scheduler finish its tick and give up its lease
// (server/scheduler/start.ts registers that under this key), then exit; after 15 s it exits anyway.
// A repeated signal changes nothing: a signal to `npm start`'s process group arrives here twice
// (directly, and forwarded by start.mjs).
const SHUTDOWN_HOOKS = Symbol.for('fleetplan.shutdownHooks');
let shuttingDown = false;
async function shutDown() {
  if (shuttingDown) return;
  shuttingDown = true;
  setTimeout(() => process.exit(1), 15_000).unref();
  server.close();
  const hooks = globalThis[SHUTDOWN_HOOKS] ?? new Set();
  await Promise.allSettled([...hooks].map((hook) => hook()));
  process.exit(0);
}
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => void shutDown());

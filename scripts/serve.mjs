#!/usr/bin/env node
// The HTTP server `npm start` runs (scripts/start.mjs spawns it): Next's request handler behind
// node:http, so that X-Forwarded-For says who is really connected. `next start` only fills that
// header when the request carries none, so a client could pick the address that sign-in
// throttling counts against. Here the socket's address replaces whatever the client sent, unless
// FLEETPLAN_TRUST_PROXY=1 says a reverse proxy in front of us writes the header.
import http from 'node:http';
import next from 'next';

const port = Number(process.env.PORT || 3000);
const trustProxy = process.env.FLEETPLAN_TRUST_PROXY === '1';
const app = next({ dev: false, dir: process.cwd() });
const handle = app.getRequestHandler();
await app.prepare();

const server = http.createServer((req, res) => {
  const socketAddress = req.socket.remoteAddress;
  if (!trustProxy || !req.headers['x-forwarded-for']) {
    if (socketAddress) req.headers['x-forwarded-for'] = socketAddress;
    else delete req.headers['x-forwarded-for'];
  }
  void handle(req, res);
});
server.listen(port, () => console.log(`fleetplan: serving on port ${port}`));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));

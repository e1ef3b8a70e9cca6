// Next.js config. The CLI and the scheduler share server/ with the app.
/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  // several dev servers may share one checkout (NEXT_DIST_DIR=.next-x)
  distDir: process.env.NEXT_DIST_DIR || '.next',
  poweredByHeader: false,
  // Node-only (child processes for exec credential plugins, proxy agents, sockets) and ~5 MB of
  // generated API code, and PostgreSQL's driver (its optional native binding is looked up at run
  // time): loaded from node_modules at run time rather than bundled into the server.
  serverExternalPackages: ['@kubernetes/client-node', 'pg'],
  // `npm run typecheck` (part of `npm test`) checks the whole repo once; the build need not repeat it.
  typescript: { ignoreBuildErrors: true },
  experimental: {
    // Next copies the body of every request proxy.ts matches into memory (twice), up to this size.
    // Only pages are matched and they take no body (no server actions); the routes that do take
    // one (/api/*, /paths/upload) are not matched and enforce their own limits (server/http).
    proxyClientMaxBodySize: '64kb',
    // Turbopack's build cache (on by default) speeds up the next build of this checkout; writing it
    // costs a cold build ~25 s of CPU. `npm test` sets FLEETPLAN_BUILD_CACHE=off where there is none
    // yet (a clean checkout, as in CI), since nothing would read it.
    turbopackFileSystemCacheForBuild: process.env.FLEETPLAN_BUILD_CACHE !== 'off',
  },
  // Pages (proxy.ts) and API routes (server/http/security-headers.ts) set these per request with
  // their CSP; this covers everything else (Next's assets). The same list as theirs.
  async headers() {
    return [{ source: '/:path*', headers: require('./server/http/static-security-headers.json') }];
  },
};

module.exports = nextConfig;

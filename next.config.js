// Next.js config. The CLI and the scheduler share server/ with the app.
/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  // several dev servers may share one checkout (NEXT_DIST_DIR=.next-x)
  distDir: process.env.NEXT_DIST_DIR || '.next',
  poweredByHeader: false,
  // `npm run typecheck` (part of `npm test`) checks the whole repo once; the build need not repeat it.
  typescript: { ignoreBuildErrors: true },
  async headers() {
    return [
      {
        source: '/:path*',
        headers: [
          { key: 'X-Content-Type-Options', value: 'nosniff' },
          { key: 'X-Frame-Options', value: 'DENY' },
          { key: 'Referrer-Policy', value: 'same-origin' },
        ],
      },
    ];
  },
};

module.exports = nextConfig;

import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import './globals.css';
import { Providers } from './providers';
import { NavLinks } from '@/components/shell/nav-links';
import { TopBar } from '@/components/shell/top-bar';
import { SetupBanner } from '@/components/shell/setup-banner';

// Every page is rendered per request: proxy.ts gives each one a fresh CSP nonce, which Next can put
// on its scripts only while rendering (a prerendered page would have scripts the CSP blocks).
export const dynamic = 'force-dynamic';

export const metadata: Metadata = {
  title: { default: 'fleetplan', template: '%s · fleetplan' },
  description: 'Plan, observe and drive upgrades across a fleet of OpenShift clusters',
  // static assets live in public/ (served as-is at the site root)
  icons: { icon: { url: '/icon.svg', type: 'image/svg+xml' } },
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <Providers>
          <div className="app">
            <aside className="sidebar">
              <div className="brand">
                <svg width="22" height="22" viewBox="0 0 24 24" fill="none" stroke="#4c9aff" strokeWidth="2" aria-hidden="true">
                  <path d="M4 17l5-5 4 4 7-8" />
                  <path d="M15 8h5v5" />
                </svg>
                fleetplan
              </div>
              <NavLinks />
              <div className="sidebar-foot">Upgrade planning for OpenShift fleets</div>
            </aside>
            <div className="main">
              <TopBar />
              <main className="content" id="main">
                <SetupBanner />
                {children}
              </main>
            </div>
          </div>
        </Providers>
      </body>
    </html>
  );
}

import type { Metadata } from 'next';
import { Suspense } from 'react';
import { PathsView } from '@/components/paths/paths-view';

export const metadata: Metadata = { title: 'Paths' };

export default function PathsPage() {
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Upgrade paths</h1>
          <p>
            For disconnected clusters: every release between a version and a target channel, what to mirror, and the EUS-to-EUS runbook.
          </p>
        </div>
      </div>
      {/* reads its inputs from the address (useSearchParams) */}
      <Suspense>
        <PathsView />
      </Suspense>
    </>
  );
}

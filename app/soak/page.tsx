import type { Metadata } from 'next';
import { Suspense } from 'react';
import { SoakView } from '@/components/soak/soak-view';

export const metadata: Metadata = { title: 'Soak' };

export default function SoakPage() {
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Soak</h1>
          <p>
            How long a version has run on clusters with the same workload, against the soakDays thresholds of the clusters waiting for it.
          </p>
        </div>
      </div>
      {/* reads its inputs from the address (useSearchParams) */}
      <Suspense>
        <SoakView />
      </Suspense>
    </>
  );
}

import type { Metadata } from 'next';
import { Suspense } from 'react';
import { FleetTable } from '@/components/fleet/fleet-table';
import { VersionDistributionChart } from '@/components/fleet/version-distribution-chart';

export const metadata: Metadata = { title: 'Fleet' };

export default function FleetPage() {
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Fleet</h1>
          <p>Every cluster, what it runs, and what the upgrade engine decided for it.</p>
        </div>
      </div>
      {/* both read the view from the address (useSearchParams) */}
      <Suspense>
        <VersionDistributionChart />
        <FleetTable />
      </Suspense>
    </>
  );
}

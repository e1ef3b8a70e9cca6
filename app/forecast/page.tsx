import type { Metadata } from 'next';
import { Suspense } from 'react';
import { ForecastView } from '@/components/forecast/forecast-view';

export const metadata: Metadata = { title: 'Forecast' };

export default function ForecastPage() {
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Forecast</h1>
          <p>
            The decision engine run forward in simulated time: which cluster gets which version when, and when each sector has the target.
          </p>
        </div>
      </div>
      {/* reads its inputs from the address (useSearchParams) */}
      <Suspense>
        <ForecastView />
      </Suspense>
    </>
  );
}

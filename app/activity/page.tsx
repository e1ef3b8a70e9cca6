import type { Metadata } from 'next';
import { Suspense } from 'react';
import { ActivityView } from '@/components/activity/activity-view';
import { LoadingRows } from '@/components/ui/states';

export const metadata: Metadata = { title: 'Activity' };

export default function ActivityPage() {
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Activity</h1>
          <p>Every decision of the scheduler, every action it took on the fleet, and every policy or admin change.</p>
        </div>
      </div>
      <Suspense
        fallback={
          <div className="panel">
            <LoadingRows rows={8} />
          </div>
        }
      >
        <ActivityView />
      </Suspense>
    </>
  );
}

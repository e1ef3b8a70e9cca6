import type { Metadata } from 'next';
import { SchedulerView } from '@/components/scheduler/scheduler-view';

export const metadata: Metadata = { title: 'Scheduler' };

export default function SchedulerPage() {
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Scheduler</h1>
          <p>The background loop that decides and starts upgrades: its state, recent ticks, maintenance exclusions and webhooks.</p>
        </div>
      </div>
      <SchedulerView />
    </>
  );
}

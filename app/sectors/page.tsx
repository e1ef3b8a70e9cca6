import type { Metadata } from 'next';
import { SectorsBoard } from '@/components/sectors/sectors-board';

export const metadata: Metadata = { title: 'Sectors' };

export default function SectorsPage() {
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Sectors</h1>
          <p>Rollout order: a version reaches a sector only after every cluster of the sectors it depends on runs it (per workload).</p>
        </div>
      </div>
      <SectorsBoard />
    </>
  );
}

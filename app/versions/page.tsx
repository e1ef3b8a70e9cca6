import type { Metadata } from 'next';
import { VersionHistory } from '@/components/versions/version-history';

export const metadata: Metadata = { title: 'Versions' };

export default function VersionsPage() {
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Versions</h1>
          <p>How long each OpenShift version has soaked per workload, who runs it now, and what is blocked.</p>
        </div>
      </div>
      <VersionHistory />
    </>
  );
}

import type { Metadata } from 'next';
import { OrgLink } from '@/components/shell/org-link';
import { ClusterPolicyEditor } from '@/components/policies/cluster-policy-editor';
import { PolicyTabs } from '@/components/policies/policy-tabs';

export async function generateMetadata({ params }: { params: Promise<{ name: string }> }): Promise<Metadata> {
  const { name } = await params;
  return { title: `Policy of ${decodeURIComponent(name)}` };
}

export default async function ClusterPolicyPage({ params }: { params: Promise<{ name: string }> }) {
  const { name: raw } = await params;
  const name = decodeURIComponent(raw);
  return (
    <>
      <div className="page-head">
        <div>
          <div className="small">
            <OrgLink href="/policies/clusters">Policies</OrgLink> / <OrgLink href={`/clusters/${encodeURIComponent(name)}`}>{name}</OrgLink>
          </div>
          <h1>Policy of {name}</h1>
          <p>Workloads, schedule and conditions the engine applies to this cluster.</p>
        </div>
      </div>
      <PolicyTabs active="clusters" />
      <ClusterPolicyEditor name={name} />
    </>
  );
}

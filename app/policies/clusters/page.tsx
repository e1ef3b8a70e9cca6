import type { Metadata } from 'next';
import { ClusterPolicyList } from '@/components/policies/cluster-policy-list';
import { PolicyTabs } from '@/components/policies/policy-tabs';

export const metadata: Metadata = { title: 'Cluster policies' };

export default function ClusterPoliciesPage() {
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Policies</h1>
          <p>Pick a cluster to edit its workloads, schedule and conditions.</p>
        </div>
      </div>
      <PolicyTabs active="clusters" />
      <ClusterPolicyList />
    </>
  );
}

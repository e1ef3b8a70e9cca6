import type { Metadata } from 'next';
import { OrganizationEditor } from '@/components/policies/organization-editor';
import { PolicyTabs } from '@/components/policies/policy-tabs';

export const metadata: Metadata = { title: 'Policies' };

export default function PoliciesPage() {
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Policies</h1>
          <p>Sectors, blocked versions, allow-lists and the freeze switch of the organization.</p>
        </div>
      </div>
      <PolicyTabs active="organization" />
      <OrganizationEditor />
    </>
  );
}

// Tabs of the policy area: the organization, and the per-cluster policies.
import { OrgLink } from '@/components/shell/org-link';

export function PolicyTabs({ active }: { active: 'organization' | 'clusters' }) {
  const tab = (key: typeof active, href: string, label: string) => (
    <OrgLink href={href} className={`btn${active === key ? ' primary' : ''}`} aria-current={active === key ? 'page' : undefined}>
      {label}
    </OrgLink>
  );
  return (
    <nav aria-label="Policy sections" style={{ display: 'flex', gap: 8 }}>
      {tab('organization', '/policies', 'Organization')}
      {tab('clusters', '/policies/clusters', 'Cluster policies')}
    </nav>
  );
}

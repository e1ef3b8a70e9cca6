// Tabs of the policy area: the organization, and the per-cluster policies.
import Link from 'next/link';

export function PolicyTabs({ active }: { active: 'organization' | 'clusters' }) {
  const tab = (key: typeof active, href: string, label: string) => (
    <Link href={href} className={`btn${active === key ? ' primary' : ''}`} aria-current={active === key ? 'page' : undefined}>
      {label}
    </Link>
  );
  return (
    <nav aria-label="Policy sections" style={{ display: 'flex', gap: 8 }}>
      {tab('organization', '/policies', 'Organization')}
      {tab('clusters', '/policies/clusters', 'Cluster policies')}
    </nav>
  );
}

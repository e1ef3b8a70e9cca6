'use client';
// Until a real fleet is brought in (an organization named, some cluster with a policy), every
// page says so and links to the Set-up page. Quiet for the demo fleet and once set up.
import { useQuery } from '@tanstack/react-query';
import { OrgLink } from '@/components/shell/org-link';
import { usePathname } from 'next/navigation';
import { useTRPC } from '@/components/trpc/client';

export function SetupBanner() {
  const trpc = useTRPC();
  const pathname = usePathname();
  // not asked for on the sign-in page, where it would only be refused
  const status = useQuery({ ...trpc.setup.status.queryOptions(), retry: false, staleTime: 30_000, enabled: pathname !== '/login' });
  if (pathname === '/setup' || pathname === '/login' || !status.data) return null;
  const s = status.data;
  if (s.complete || s.demo) return null;
  const next = !s.organization?.named ? 'name the organization' : s.clusters === 0 ? 'connect the provider' : 'import the policies';
  return (
    <div className="banner warn small" role="status" data-testid="setup-banner" style={{ marginBottom: 16 }}>
      fleetplan is not set up yet: nothing is planned until clusters have upgrade policies. Next: {next}.{' '}
      <OrgLink href="/setup">Continue the set-up</OrgLink>
    </div>
  );
}

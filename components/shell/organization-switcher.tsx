'use client';
// The top bar's organization switcher: every organization of the instance; choosing one puts
// `?org=NAME` in the address (every call of the page then works on it) and remembers it for the
// user, so the next visit without `?org=` lands there. A page opened with `?org=NAME` (a shared
// link) is remembered too.
import { useMutation, useQuery } from '@tanstack/react-query';
import { usePathname } from 'next/navigation';
import { useEffect } from 'react';
import { useTRPC } from '@/components/trpc/client';
import { useOrganizationParam, withOrganization } from './organization-link';

export function OrganizationSwitcher() {
  const trpc = useTRPC();
  const pathname = usePathname();
  const inAddress = useOrganizationParam();
  const orgs = useQuery(trpc.organizations.list.queryOptions());
  const remember = useMutation(trpc.organizations.select.mutationOptions());
  const data = orgs.data;
  const { mutate } = remember;

  useEffect(() => {
    if (data && inAddress && data.current === inAddress && data.remembered !== inAddress) mutate({ name: inAddress });
  }, [data, inAddress, mutate]);

  if (!data) return <strong>…</strong>;
  if (data.organizations.length <= 1) return <strong data-testid="organization-name">{data.current ?? 'no organization'}</strong>;
  function choose(name: string) {
    // a full load: every query of the page is asked again for the chosen organization
    const go = () => window.location.assign(withOrganization(pathname.startsWith('/clusters/') ? '/fleet' : pathname, name));
    mutate({ name }, { onSettled: go });
  }
  return (
    <label className="org-switcher">
      <span className="sr-only">Organization</span>
      <select
        aria-label="Organization"
        data-testid="organization-switcher"
        value={data.current ?? ''}
        disabled={remember.isPending}
        onChange={(e) => choose(e.target.value)}
      >
        {data.organizations.map((o) => (
          <option key={o.name} value={o.name}>
            {o.name}
            {o.frozen ? ' (frozen)' : ''}
          </option>
        ))}
      </select>
    </label>
  );
}

'use client';
// Links inside the app keep the page's organization (`?org=NAME`, sent to the server as the
// x-fleetplan-org header by components/trpc/client.tsx).
import { usePathname } from 'next/navigation';
import { useEffect, useState } from 'react';

/** `href` with the current page's `org` parameter added (unless `href` names one itself). */
export function withOrganization(href: string, org: string | null): string {
  if (!org || /[?&]org=/.test(href)) return href;
  const [path, hash = ''] = href.split('#', 2) as [string, string?];
  const joined = `${path}${path.includes('?') ? '&' : '?'}org=${encodeURIComponent(org)}`;
  return hash ? `${joined}#${hash}` : joined;
}

/** The organization the address names (`?org=NAME`), or null: read when called, in the browser only. */
export function organizationInAddress(): string | null {
  return new URLSearchParams(window.location.search).get('org');
}

/**
 * The organization the address names, or null. Read from the address after mounting (not with
 * useSearchParams, which would make every page that shows the top bar render on the client only).
 */
export function useOrganizationParam(): string | null {
  const pathname = usePathname();
  const [org, setOrg] = useState<string | null>(null);
  useEffect(() => {
    setOrg(organizationInAddress());
  }, [pathname]);
  return org;
}

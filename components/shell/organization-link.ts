'use client';
// Links inside the app keep the page's organization (`?org=NAME`, sent to the server as the
// x-fleetplan-org header by components/trpc/client.tsx).
import { usePathname } from 'next/navigation';
import { useSyncExternalStore } from 'react';

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

// back and forward change the address without a navigation this module hears of
const subscribeToHistory = (onChange: () => void) => {
  window.addEventListener('popstate', onChange);
  return () => window.removeEventListener('popstate', onChange);
};

/**
 * The organization the address names, or null. Read from the address in the browser (not with
 * useSearchParams, which would make every page that shows the top bar render on the client only);
 * null while the server renders. One shared reading instead of a state and an effect in every
 * link: a table of 50 cluster links rendered each link twice.
 */
export function useOrganizationParam(): string | null {
  usePathname(); // read again after a client-side navigation
  return useSyncExternalStore(subscribeToHistory, organizationInAddress, () => null);
}

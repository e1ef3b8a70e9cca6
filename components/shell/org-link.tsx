'use client';
// The one way to link inside the app: every internal link keeps the page's organization
// (`?org=NAME`), so a link copied from any page opens the same organization. Plain `next/link`
// would drop it and land on the user's remembered organization instead.
import Link from 'next/link';
import type { ComponentProps } from 'react';
import { useOrganizationParam, withOrganization } from './organization-link';

type OrgLinkProps = Omit<ComponentProps<typeof Link>, 'href'> & { href: string };

/** `next/link` with the page's `?org=` added to `href` (unless `href` names an organization itself). */
export function OrgLink({ href, ...props }: OrgLinkProps) {
  const org = useOrganizationParam();
  return <Link {...props} href={withOrganization(href, org)} />;
}

'use client';
import { usePathname } from 'next/navigation';
import { OrgLink } from './org-link';

export const NAV_ITEMS = [
  { href: '/fleet', label: 'Fleet', icon: 'M3 5h18v4H3zM3 11h18v4H3zM3 17h18v4H3z' },
  { href: '/policies', label: 'Policies', icon: 'M6 3h9l5 5v13H6zM14 3v6h6' },
  {
    href: '/sectors',
    label: 'Sectors',
    icon: 'M5 6a2 2 0 1 0 0.01 0M19 6a2 2 0 1 0 0.01 0M12 18a2 2 0 1 0 0.01 0M6.5 7.5 11 16.5M17.5 7.5 13 16.5',
  },
  { href: '/soak', label: 'Soak', icon: 'M3 20h18M5 16l4-5 4 3 6-8' },
  { href: '/versions', label: 'Versions', icon: 'M4 4h7v7H4zM13 4h7v7h-7zM4 13h7v7H4zM13 13h7v7h-7z' },
  { href: '/paths', label: 'Paths', icon: 'M5 19a2 2 0 1 0 0.01 0M19 5a2 2 0 1 0 0.01 0M6 17 C 10 10, 14 14, 18 7' },
  { href: '/forecast', label: 'Forecast', icon: 'M3 6h10M3 12h14M3 18h7M17 3v6M21 9h-8' },
  { href: '/activity', label: 'Activity', icon: 'M3 12h4l3 8 4-16 3 8h4' },
  { href: '/scheduler', label: 'Scheduler', icon: 'M12 3a9 9 0 1 0 0.01 0M12 7v5l3 3' },
];

export function NavLinks() {
  const pathname = usePathname();
  return (
    <nav aria-label="Main">
      {NAV_ITEMS.map((item) => {
        const active =
          pathname === item.href || pathname.startsWith(`${item.href}/`) || (item.href === '/fleet' && pathname.startsWith('/clusters'));
        return (
          <OrgLink key={item.href} href={item.href} className="nav-link" aria-current={active ? 'page' : undefined}>
            <svg width="16" height="16" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="1.8" aria-hidden="true">
              <path d={item.icon} />
            </svg>
            {item.label}
          </OrgLink>
        );
      })}
    </nav>
  );
}

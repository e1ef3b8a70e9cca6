'use client';
// Who is signed in, with which role, and "Sign out". A browser whose session ended (expired,
// revoked, user disabled) is sent back to the login page from here.
import { useMutation, useQuery } from '@tanstack/react-query';
import { OrgLink } from '@/components/shell/org-link';
import { usePathname } from 'next/navigation';
import { useEffect, useRef, useState } from 'react';
import { useTRPC } from '@/components/trpc/client';
import { useDismiss } from '@/components/ui/use-dismiss';
import styles from './auth.module.css';

const ROLE_TONE: Record<string, string> = { viewer: '', operator: 'info', admin: 'accent' };

export function UserMenu() {
  const trpc = useTRPC();
  const pathname = usePathname();
  const me = useQuery({ ...trpc.auth.me.queryOptions(), staleTime: 60_000 });
  const logout = useMutation(trpc.auth.logout.mutationOptions({ onSettled: () => window.location.assign('/login') }));
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (me.isSuccess && me.data === null && pathname !== '/login') {
      // back to the same page of the same organization after signing in
      window.location.assign(`/login?next=${encodeURIComponent(pathname + window.location.search)}`);
    }
    // a printed or admin-set password: nothing else works until it is replaced
    if (me.data?.mustChangePassword && pathname !== '/login') {
      window.location.assign(`/login?change=1&next=${encodeURIComponent(pathname + window.location.search)}`);
    }
  }, [me.isSuccess, me.data, pathname]);

  useDismiss(ref, open, () => setOpen(false));

  if (!me.data) return null;
  const user = me.data;
  // the role on the page's organization (a grant there replaces the global one)
  const here = user.organizationRole ?? 'no role';
  return (
    <div className={styles.menu} ref={ref}>
      <button
        type="button"
        className="btn"
        aria-haspopup="true"
        aria-expanded={open}
        onClick={() => setOpen((v) => !v)}
        aria-label={`Signed in as ${user.username}`}
      >
        <span className="truncate" style={{ maxWidth: 140 }}>
          {user.username}
        </span>
        <span className={`badge ${ROLE_TONE[here] ?? ''}`}>{here}</span>
      </button>
      {open && (
        <div className={styles.menuPanel} role="menu">
          <div className="small muted">
            Signed in as <strong>{user.username}</strong> (
            {here === user.role ? user.role : `${here} on this organization, ${user.role} on the instance`})
          </div>
          <OrgLink href="/admin" className="btn" role="menuitem" onClick={() => setOpen(false)}>
            {user.role === 'admin' ? 'Users and API tokens' : 'API tokens'}
          </OrgLink>
          <button type="button" className="btn danger" role="menuitem" disabled={logout.isPending} onClick={() => logout.mutate()}>
            Sign out
          </button>
        </div>
      )}
    </div>
  );
}

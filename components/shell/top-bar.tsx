'use client';
// The bar above every page: the organization, the fleet clock (in UTC) and global states.
import { useQuery } from '@tanstack/react-query';
import { UserMenu } from '@/components/auth/user-menu';
import { useTRPC } from '@/components/trpc/client';

export function TopBar() {
  const trpc = useTRPC();
  const status = useQuery({ ...trpc.fleet.status.queryOptions(), refetchInterval: 15_000 });
  const s = status.data;
  return (
    <header className="topbar">
      <strong>{s?.organization ?? '…'}</strong>
      {s && <span className="muted small">{s.clusterCount} clusters · provider {s.provider}</span>}
      <span className="spacer" />
      {s?.frozen && <span className="badge bad" title={s.frozenReason ?? undefined}>Fleet frozen: no new upgrades</span>}
      {s && (
        <span className="small muted" title="The fleet's clock; the simulator may run faster than real time">
          {s.simulated ? 'Simulated time ' : ''}
          <span className="mono">{s.now.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</span> UTC
        </span>
      )}
      <UserMenu />
    </header>
  );
}

'use client';
// The bar above every page: the organization, live updates, the time-zone choice, the fleet clock
// and global states.
import { useQuery } from '@tanstack/react-query';
import { UserMenu } from '@/components/auth/user-menu';
import { FreezeBadge } from '@/components/simulator/freeze-badge';
import { SimulatorClock } from '@/components/simulator/simulator-clock';
import { useTRPC } from '@/components/trpc/client';
import { ZoneSwitch } from '@/components/ui/zoned-time-view';
import { LiveUpdates } from './live-updates';
import { OrganizationSwitcher } from './organization-switcher';

export function TopBar() {
  const trpc = useTRPC();
  const status = useQuery({ ...trpc.fleet.status.queryOptions(), refetchInterval: 5000 });
  const s = status.data;
  return (
    <header className="topbar">
      <OrganizationSwitcher />
      {s && (
        <span className="muted small">
          {s.clusterCount} clusters · provider {s.provider}
        </span>
      )}
      <span className="spacer" />
      {s && <LiveUpdates lastTick={s.lastTick} />}
      <ZoneSwitch />
      {s?.frozen && <FreezeBadge reason={s.frozenReason} />}
      {s && <SimulatorClock fallbackNow={s.now} />}
      <UserMenu />
    </header>
  );
}

'use client';
// The bar above every page: the organization, live updates, the time-zone choice, the fleet clock
// and global states.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect } from 'react';
import { UserMenu } from '@/components/auth/user-menu';
import { FreezeBadge } from '@/components/simulator/freeze-badge';
import { SimulatorClock } from '@/components/simulator/simulator-clock';
import { useTRPC } from '@/components/trpc/client';
import { ZoneSwitch } from '@/components/ui/zoned-time-view';
import { LiveUpdates } from './live-updates';
import { OrganizationSwitcher } from './organization-switcher';

/**
 * Reads fleet.status again the moment a scheduler tick finishes (GET /api/live, server-sent events,
 * whichever replica ran the tick); the 5 s poll stays for when the stream cannot get through.
 */
function useFinishedTicks(onTick: () => void): void {
  useEffect(() => {
    if (typeof EventSource === 'undefined') return;
    const source = new EventSource('/api/live');
    source.addEventListener('tick', onTick);
    return () => source.close();
  }, [onTick]);
}

export function TopBar() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const status = useQuery({ ...trpc.fleet.status.queryOptions(), refetchInterval: 5000 });
  const readStatusAgain = useCallback(
    () => void queryClient.invalidateQueries({ queryKey: trpc.fleet.status.queryKey() }),
    [queryClient, trpc],
  );
  useFinishedTicks(readStatusAgain);
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

'use client';
// The fleet's clock for relative times ("in 5 h"): the simulator's when it runs (it moves many
// times faster than the wall clock), else the server's. Read from the queries the top bar polls
// anyway, and moved on locally between polls.
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState, type ReactNode } from 'react';
import { useTRPC } from '@/components/trpc/client';
import { FleetNowContext } from '@/components/ui/zoned-time-view';

const STEP_MS = 15_000;

export function FleetNowProvider({ children }: { children: ReactNode }) {
  const trpc = useTRPC();
  const status = useQuery({ ...trpc.fleet.status.queryOptions(), refetchInterval: 5000 });
  const clock = useQuery({ ...trpc.scheduler.clock.queryOptions(), refetchInterval: 10_000, enabled: status.data?.simulated === true });
  const [wall, setWall] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setWall(Date.now()), STEP_MS);
    return () => clearInterval(id);
  }, []);
  let nowMs: number | null = null;
  if (clock.data) {
    const base = Date.parse(clock.data.now);
    nowMs = clock.data.paused ? base : base + Math.max(0, wall - clock.dataUpdatedAt) * clock.data.speed;
  } else if (status.data) {
    nowMs = Date.parse(status.data.now) + Math.max(0, wall - status.dataUpdatedAt);
  }
  return <FleetNowContext.Provider value={nowMs}>{children}</FleetNowContext.Provider>;
}

'use client';
// The fleet's clock in the top bar. With the simulator provider it is the simulator's clock:
// ticking locally between polls, with pause/resume, speed and "advance" controls (operators).
// With a real provider it is just the current time in UTC.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';
import { useTRPC } from '@/components/trpc/client';
import { formatUtc } from '@/components/ui/zoned-time';
import { useDismiss } from '@/components/ui/use-dismiss';
import { OPERATOR_ONLY, useRole } from '@/components/scheduler/use-role';
import './simulator.css';

type Clock = NonNullable<inferRouterOutputs<AppRouter>['scheduler']['clock']>;
const SPEEDS = [1, 60, 600, 3600];

function formatClock(ms: number, speed: number): string {
  const iso = new Date(ms).toISOString();
  // seconds mean nothing when an hour passes every second
  return `${iso.slice(0, 10)} ${speed > 60 ? iso.slice(11, 16) : iso.slice(11, 19)} UTC`;
}

function useTicking(clock: Clock | undefined | null, fetchedAt: number): number | null {
  const [now, setNow] = useState(() => Date.now());
  const running = !!clock && !clock.paused;
  useEffect(() => {
    if (!running) return;
    const id = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(id);
  }, [running]);
  if (!clock) return null;
  const base = Date.parse(clock.now);
  return clock.paused ? base : base + Math.max(0, now - fetchedAt) * clock.speed;
}

export function SimulatorClock({ fallbackNow }: { fallbackNow: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const { canOperate } = useRole();
  const clock = useQuery({ ...trpc.scheduler.clock.queryOptions(), refetchInterval: 10_000 });
  const simMs = useTicking(clock.data, clock.dataUpdatedAt);
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);

  useDismiss(ref, open, () => setOpen(false));

  const onClock = {
    onSuccess: (next: Clock) => qc.setQueryData(trpc.scheduler.clock.queryKey(), next),
    onSettled: () => void qc.invalidateQueries({ queryKey: trpc.fleet.status.queryKey() }),
  };
  const speed = useMutation(trpc.scheduler.setClockSpeed.mutationOptions(onClock));
  const pause = useMutation(trpc.scheduler.pauseClock.mutationOptions(onClock));
  const advance = useMutation(trpc.scheduler.advanceClock.mutationOptions(onClock));
  const busy = speed.isPending || pause.isPending || advance.isPending;
  const error = speed.error ?? pause.error ?? advance.error;

  const c = clock.data;
  if (!c || simMs === null) {
    return (
      <span className="small muted" title="The fleet's clock">
        <span className="mono">{formatUtc(fallbackNow)}</span>
      </span>
    );
  }
  const speeds = SPEEDS.includes(c.speed) || c.paused ? SPEEDS : [...SPEEDS, c.speed].sort((a, b) => a - b);
  return (
    <div className="sim-clock" ref={ref}>
      <button
        type="button"
        className="btn"
        aria-haspopup="dialog"
        aria-expanded={open}
        onClick={() => setOpen((v) => !v)}
        title="Simulated fleet time: open the simulator clock controls"
        data-testid="sim-clock"
      >
        <span className={`sim-dot${c.paused ? ' paused' : ''}`} aria-hidden="true" />
        <span className="small muted">Simulated</span>
        <span className="mono">{formatClock(simMs, c.speed)}</span>
        <span className="badge">{c.paused ? 'paused' : `${c.speed}×`}</span>
      </button>
      {open && (
        <div className="sim-panel" role="dialog" aria-label="Simulator clock">
          <div>
            <strong>Simulator clock</strong>
            <div className="small muted">The simulated fleet lives on this clock; policies, soak and ticks all use it.</div>
          </div>
          <div className="row">
            <button
              type="button"
              className="btn"
              disabled={!canOperate || busy}
              onClick={() => pause.mutate({ paused: !c.paused })}
              title={canOperate ? undefined : OPERATOR_ONLY}
            >
              {c.paused ? 'Resume clock' : 'Pause clock'}
            </button>
            <label className="small" style={{ display: 'inline-flex', gap: 6, alignItems: 'center' }}>
              Speed
              <select
                aria-label="Clock speed"
                value={c.paused ? '' : c.speed}
                disabled={!canOperate || busy}
                onChange={(e) => speed.mutate({ speed: Number(e.target.value) })}
              >
                {c.paused && <option value="">paused</option>}
                {speeds.map((s) => (
                  <option key={s} value={s}>
                    {s}× {s === 1 ? '(real time)' : s === 60 ? '(1 min/s)' : s === 600 ? '(10 min/s)' : s === 3600 ? '(1 h/s)' : ''}
                  </option>
                ))}
              </select>
            </label>
          </div>
          <div className="row">
            <span className="small">Advance</span>
            <button
              type="button"
              className="btn"
              disabled={!canOperate || busy}
              onClick={() => advance.mutate({ seconds: 3600 })}
              title={canOperate ? undefined : OPERATOR_ONLY}
            >
              +1 h
            </button>
            <button
              type="button"
              className="btn"
              disabled={!canOperate || busy}
              onClick={() => advance.mutate({ seconds: 86_400 })}
              title={canOperate ? undefined : OPERATOR_ONLY}
            >
              +1 d
            </button>
          </div>
          {!canOperate && <div className="small muted">Read-only: only operators and admins change the clock.</div>}
          {error && (
            <div className="small" role="alert" style={{ color: 'var(--bad)' }}>
              {error.message}
            </div>
          )}
          <div>
            <div className="small" style={{ fontWeight: 600 }}>
              Next simulated releases
            </div>
            {c.upcomingReleases.length === 0 ? (
              <div className="small muted">none left to publish</div>
            ) : (
              <ul className="small">
                {c.upcomingReleases.map((r) => (
                  <li key={r.version}>
                    <span className="mono">{r.version}</span> <span className="muted">at {formatUtc(r.publishAt)}</span>
                  </li>
                ))}
              </ul>
            )}
          </div>
        </div>
      )}
    </div>
  );
}

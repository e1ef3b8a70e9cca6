'use client';
// Pages follow the fleet: the top bar polls fleet.status (cheap), and when a new scheduler tick has
// finished the shown data is refetched, so the Fleet table, Activity and the rest move with the
// clock. Paused (remembered per browser), the marker says new data is waiting instead.
import { useQueryClient, type Query } from '@tanstack/react-query';
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { formatRelative } from '@/components/ui/zoned-time';
import { ZonedTime } from '@/components/ui/zoned-time-view';

const PAUSE_KEY = 'fleetplan.live.paused';
const PAUSE_EVENT = 'fleetplan:live-paused';

// Queries a tick does not change, or that are costly to run again unasked: the forecast runs on
// its button, the policy editor holds drafts, and fleet.status is the signal itself.
const KEPT = new Set(['forecast', 'policies', 'graphs']);
function refreshedByTick(query: Query): boolean {
  const path = query.queryKey[0];
  if (!Array.isArray(path)) return true;
  if (path[0] === 'fleet' && path[1] === 'status') return false;
  return !KEPT.has(String(path[0]));
}

function readPaused(): boolean {
  try {
    return window.localStorage.getItem(PAUSE_KEY) === '1';
  } catch {
    return false;
  }
}
function subscribePaused(onChange: () => void) {
  window.addEventListener(PAUSE_EVENT, onChange);
  window.addEventListener('storage', onChange);
  return () => {
    window.removeEventListener(PAUSE_EVENT, onChange);
    window.removeEventListener('storage', onChange);
  };
}
function setPaused(paused: boolean) {
  try {
    if (paused) window.localStorage.setItem(PAUSE_KEY, '1');
    else window.localStorage.removeItem(PAUSE_KEY);
  } catch {
    // storage blocked: the choice lasts for this page view only
  }
  window.dispatchEvent(new Event(PAUSE_EVENT));
}

function useWallClock(everyMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(id);
  }, [everyMs]);
  return now;
}

export function LiveUpdates({ lastTick }: { lastTick: { id: number; finishedAt: string } | null }) {
  const queryClient = useQueryClient();
  const paused = useSyncExternalStore(subscribePaused, readPaused, () => false);
  const tickId = lastTick?.id ?? null;
  // the tick the shown data is from; the first status read is the baseline, not a change
  const [shownTick, setShownTick] = useState<number | null | undefined>(undefined);
  const [updatedAt, setUpdatedAt] = useState<number | null>(null);
  const refreshing = useRef(false);
  const wall = useWallClock(5000);

  useEffect(() => {
    if (shownTick === undefined) {
      setShownTick(tickId);
      setUpdatedAt(Date.now());
      return;
    }
    if (tickId === shownTick || paused || refreshing.current) return;
    refreshing.current = true;
    void queryClient.invalidateQueries({ predicate: refreshedByTick }).finally(() => {
      refreshing.current = false;
      setShownTick(tickId);
      setUpdatedAt(Date.now());
    });
  }, [tickId, shownTick, paused, queryClient]);

  const waiting = shownTick !== undefined && tickId !== shownTick;
  return (
    <span className="live-updates small" data-testid="live-updates" data-tick={shownTick ?? ''}>
      <span className={`live-dot${paused ? ' paused' : ''}`} aria-hidden="true" />
      {paused && waiting ? (
        <span className="badge warn" role="status">
          new data (tick #{tickId})
        </span>
      ) : (
        <span className="muted" role="status" title={lastTick ? undefined : 'no scheduler tick has finished yet'}>
          {updatedAt === null ? 'live' : `updated ${formatRelative(new Date(updatedAt).toISOString(), wall)}`}
          {lastTick && shownTick === lastTick.id && (
            <>
              {' '}
              · tick #{lastTick.id} at <ZonedTime iso={lastTick.finishedAt} />
            </>
          )}
        </span>
      )}
      <button
        type="button"
        className="btn"
        aria-pressed={paused}
        onClick={() => setPaused(!paused)}
        title={paused ? 'Resume: refresh pages when a scheduler tick lands' : 'Pause: keep the shown data until resumed'}
      >
        {paused ? 'Resume live' : 'Pause live'}
      </button>
    </span>
  );
}

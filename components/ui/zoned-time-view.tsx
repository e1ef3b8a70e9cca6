'use client';
// Instants on screen, one home for all of them: <ZonedTime> shows an instant in the zone the
// operator chose (UTC or the browser's own, remembered per browser) or in a zone the caller names
// (a schedule's), always with the zone's name; `relative` shows "in 5 h 20 min" against the
// fleet's clock (the simulator's when it runs) with the absolute time on hover.
import { createContext, useCallback, useContext, useSyncExternalStore } from 'react';
import { formatInZone, formatRelative, isoOf, zoneOf, type ZoneChoice } from './zoned-time';

const STORAGE_KEY = 'fleetplan.timeZone';
const CHANGE_EVENT = 'fleetplan:time-zone';

function readChoice(): ZoneChoice {
  try {
    return window.localStorage.getItem(STORAGE_KEY) === 'local' ? 'local' : 'UTC';
  } catch {
    return 'UTC';
  }
}

function subscribe(onChange: () => void): () => void {
  // 'storage' carries a choice made in another tab
  window.addEventListener('storage', onChange);
  window.addEventListener(CHANGE_EVENT, onChange);
  return () => {
    window.removeEventListener('storage', onChange);
    window.removeEventListener(CHANGE_EVENT, onChange);
  };
}

/** The operator's zone choice and its setter; the server renders UTC, the browser then its choice. */
export function useZoneChoice(): [ZoneChoice, (choice: ZoneChoice) => void] {
  const choice = useSyncExternalStore(subscribe, readChoice, () => 'UTC' as const);
  const choose = useCallback((next: ZoneChoice) => {
    try {
      window.localStorage.setItem(STORAGE_KEY, next);
    } catch {
      // storage blocked: the choice lasts for this page view only
    }
    window.dispatchEvent(new Event(CHANGE_EVENT));
  }, []);
  return [choice, choose];
}

/** The IANA zone instants are shown in. */
export function useDisplayZone(): string {
  return zoneOf(useZoneChoice()[0]);
}

/** The fleet's "now" in ms (the simulator's clock when it runs); null: the browser's clock. */
export const FleetNowContext = createContext<number | null>(null);

export function useFleetNowMs(): number {
  return useContext(FleetNowContext) ?? Date.now();
}

export function ZonedTime({
  iso,
  zone,
  weekday = false,
  relative = false,
  className = 'nowrap',
}: {
  iso: Date | string | null | undefined;
  /** A fixed zone (a schedule's); otherwise the operator's choice. */
  zone?: string;
  weekday?: boolean;
  /** Show "in 3 h" / "2 d ago" with the absolute time on hover. */
  relative?: boolean;
  className?: string;
}) {
  const chosen = useDisplayZone();
  const nowMs = useFleetNowMs();
  const normalized = isoOf(iso);
  if (!normalized) return <span className="muted">—</span>;
  const shownZone = zone ?? chosen;
  const absolute = formatInZone(normalized, shownZone, { weekday });
  const inUtc = shownZone === 'UTC' ? '' : ` · ${formatInZone(normalized, 'UTC', { weekday: false })}`;
  const away = formatRelative(normalized, nowMs);
  return (
    <time dateTime={normalized} className={className} title={relative ? `${absolute}${inUtc}` : `${away}${inUtc}`}>
      {relative ? away : absolute}
    </time>
  );
}

/** The UTC / local switch of the top bar. */
export function ZoneSwitch() {
  const [choice, choose] = useZoneChoice();
  const local = zoneOf('local');
  return (
    <div className="zone-switch" role="group" aria-label="Time zone">
      {(['UTC', 'local'] as const).map((c) => (
        <button
          key={c}
          type="button"
          className={`btn${choice === c ? ' primary' : ''}`}
          aria-pressed={choice === c}
          title={c === 'UTC' ? 'Show times in UTC' : `Show times in this browser's zone (${local})`}
          onClick={() => choose(c)}
        >
          {c === 'UTC' ? 'UTC' : 'Local'}
        </button>
      ))}
    </div>
  );
}

'use client';
// Gantt of predicted upgrades: one row per cluster (grouped by sector), a UTC day axis, bars
// coloured by target version, a marker where the cluster reaches the forecast's target.
// The day axis fits the panel's width (it scrolls sideways only on a very narrow window, with
// at least MIN_PX_PER_DAY a day) and runs to the horizon; only the current page of rows is rendered.
import { Fragment, useEffect, useMemo, useRef, useState } from 'react';
import { formatUtc } from '@/components/ui/zoned-time';
import type { ForecastOutput } from './forecast-view';

const DAY_MS = 86_400_000;
const NAME_COLUMN_PX = 200;
const MIN_PX_PER_DAY = 6;
const MAX_PX_PER_DAY = 40;
/** day labels at least this far apart */
const LABEL_SPACING_PX = 46;
const LABEL_STEPS = [1, 2, 3, 7, 14, 30];

/** The width of an element, kept up to date as the window resizes (null before the first layout). */
function useElementWidth<T extends HTMLElement>(): [React.RefObject<T | null>, number | null] {
  const ref = useRef<T | null>(null);
  const [width, setWidth] = useState<number | null>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const observer = new ResizeObserver(() => setWidth(el.clientWidth));
    observer.observe(el);
    setWidth(el.clientWidth);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}
const PALETTE = ['#4c9aff', '#3fb950', '#d29922', '#a371f7', '#f85149', '#db61a2', '#2dba9c', '#e8833a', '#8b949e', '#6e7bff'];

type Row = ForecastOutput['rows'][number];
type Bar = Row['upgrades'][number];

/** An EUS-to-EUS run taken control-plane-only names the releases it passes (empty for any other upgrade). */
function viaLabel(u: { via?: readonly string[] }): string {
  return u.via?.length ? ` (EUS-to-EUS, control plane only, via ${u.via.join(' → ')})` : '';
}

export function ForecastGantt({ data }: { data: ForecastOutput }) {
  const from = Date.parse(data.from);
  const until = Date.parse(data.until);
  const days = Math.max(1, (until - from) / DAY_MS);
  const [scrollRef, available] = useElementWidth<HTMLDivElement>();
  const pxPerDay = Math.min(MAX_PX_PER_DAY, Math.max(MIN_PX_PER_DAY, ((available ?? 1100) - NAME_COLUMN_PX - 2) / days));
  const width = Math.floor(days * pxPerDay);
  const [hover, setHover] = useState<{ row: Row; bar: Bar } | null>(null);

  const colorOf = useMemo(() => {
    const map = new Map(data.versions.map((v, i) => [v, PALETTE[i % PALETTE.length]!]));
    return (v: string) => map.get(v) ?? '#8b949e';
  }, [data.versions]);
  const x = (iso: string) => Math.max(0, Math.min(width, ((Date.parse(iso) - from) / DAY_MS) * pxPerDay));
  const firstDay = Math.floor(from / DAY_MS) * DAY_MS;
  const ticks = Array.from({ length: Math.ceil(days) + 2 }, (_, i) => firstDay + i * DAY_MS).filter((t) => t >= from && t <= until);
  const labelEvery = LABEL_STEPS.find((step) => step * pxPerDay >= LABEL_SPACING_PX) ?? LABEL_STEPS[LABEL_STEPS.length - 1]!;
  // the last day label is left out when it would run into the horizon's own label
  const horizonLabelPx = 104;
  const barVersions = [...new Set(data.rows.flatMap((r) => r.upgrades.map((u) => u.version)))];

  return (
    <div className="gantt-wrap">
      <div className="gantt-detail small" aria-live="polite">
        {hover ? (
          <>
            <strong>{hover.row.cluster}</strong>: {hover.bar.from} → <span className="mono">{hover.bar.version}</span>
            {viaLabel(hover.bar)}, {formatUtc(hover.bar.start)} – {formatUtc(hover.bar.end)}
            {hover.bar.inFlight ? ' (already scheduled or running)' : ''}
          </>
        ) : (
          <span className="muted">Hover or focus a bar for details. Day axis in UTC.</span>
        )}
        <span className="gantt-legend" aria-label="Versions">
          {barVersions.map((v) => (
            <span key={v} className="chips" style={{ alignItems: 'center', gap: 4 }}>
              <span className="gantt-swatch" style={{ background: colorOf(v) }} />
              <span className="mono">{v}</span>
            </span>
          ))}
          {data.targetVersion && (
            <span className="chips" style={{ alignItems: 'center', gap: 4 }}>
              <span className="gantt-target-marker static" /> reaches {data.targetVersion}
            </span>
          )}
        </span>
      </div>
      <div className="gantt-scroll" ref={scrollRef} tabIndex={0} aria-label="Timeline">
        <div className="gantt" style={{ width: width + NAME_COLUMN_PX }}>
          <div className="gantt-row gantt-axis">
            <div className="gantt-name small muted">cluster · UTC</div>
            <div className="gantt-track" style={{ width }}>
              {ticks.map((t, i) => {
                const left = ((t - from) / DAY_MS) * pxPerDay;
                const labelled = i % labelEvery === 0 && left < width - horizonLabelPx;
                return (
                  <div key={t} className="gantt-tick" style={{ left }}>
                    {labelled && <span>{new Date(t).toISOString().slice(5, 10)}</span>}
                  </div>
                );
              })}
              <div className="gantt-horizon" title={`Forecast horizon ${formatUtc(data.until)}`}>
                <span>{new Date(until).toISOString().slice(5, 10)} end</span>
              </div>
            </div>
          </div>
          {data.rows.map((row, i) => {
            const prev = data.rows[i - 1];
            const header = !prev || prev.sector !== row.sector;
            return (
              <Fragment key={row.cluster}>
                {header && (
                  <div className="gantt-row gantt-group">
                    <div className="gantt-name">{row.sector ?? 'no sector'}</div>
                    <div className="gantt-track" style={{ width }} />
                  </div>
                )}
                <div className="gantt-row" data-cluster={row.cluster}>
                  <div className="gantt-name" title={`${row.cluster}: ${row.startVersion} → ${row.finalVersion}`}>
                    <span className="mono">{row.cluster}</span>
                    <span className="small muted"> {row.startVersion}</span>
                  </div>
                  <div className="gantt-track" style={{ width }}>
                    {ticks.map((t) => (
                      <div key={t} className="gantt-gridline" style={{ left: ((t - from) / DAY_MS) * pxPerDay }} />
                    ))}
                    {row.upgrades.map((u) => {
                      const left = x(u.start);
                      const w = Math.max(8, x(u.end) - left);
                      const label = `${row.cluster}: ${u.from} to ${u.version}${viaLabel(u)}, ${formatUtc(u.start)} to ${formatUtc(u.end)}`;
                      return (
                        <div
                          key={u.start + u.version}
                          className={`gantt-bar${u.inFlight ? ' in-flight' : ''}`}
                          style={{ left, width: w, background: colorOf(u.version) }}
                          tabIndex={0}
                          role="img"
                          aria-label={label}
                          title={label}
                          onMouseEnter={() => setHover({ row, bar: u })}
                          onFocus={() => setHover({ row, bar: u })}
                        />
                      );
                    })}
                    {row.reachesTargetAt && Date.parse(row.reachesTargetAt) > from && (
                      <div
                        className="gantt-target-marker"
                        style={{
                          left:
                            Math.max(
                              x(row.reachesTargetAt),
                              ...row.upgrades.filter((u) => u.end === row.reachesTargetAt).map((u) => x(u.start) + 8),
                            ) + 7,
                        }}
                        title={`reaches ${data.targetVersion} at ${formatUtc(row.reachesTargetAt)}`}
                      />
                    )}
                    {row.upgrades.length === 0 && row.lastDecision && (
                      <span className="gantt-why small muted">
                        {row.reachesTargetAt
                          ? 'already on target'
                          : `${row.lastDecision.reason ?? row.lastDecision.action}: ${row.lastDecision.message}`}
                      </span>
                    )}
                  </div>
                </div>
              </Fragment>
            );
          })}
        </div>
      </div>
    </div>
  );
}

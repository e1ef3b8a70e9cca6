'use client';
// Rollout forecast: the engine run forward in simulated time on the server; this view shows per
// sector when every cluster has the target version, and a Gantt of predicted upgrades per
// cluster (one page of rows at a time, grouped by sector). What-if overrides re-run the forecast
// without saving anything.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';
import { useTRPC, useTRPCClient } from '@/components/trpc/client';
import { download } from '@/components/ui/data-table';
import { fetchAllPages } from '@/components/ui/table-model';
import { forecastCsv } from './forecast-export';
import { formatSpan } from '@/components/ui/zoned-time';
import { ZonedTime } from '@/components/ui/zoned-time-view';
import { EmptyState } from '@/components/ui/states';
import { QueryState } from '@/components/ui/query-state';
import { DataTable } from '@/components/ui/data-table';
import { Pager } from '@/components/ui/pager';
import { ForecastGantt } from './forecast-gantt';
import { WhatIfPanel, type WhatIf } from './what-if-panel';
import './forecast.css';
import { useUrlState, useUrlText } from '@/components/ui/use-url-state';

type RunInput = inferRouterInputs<AppRouter>['forecast']['run'];
export type ForecastOutput = inferRouterOutputs<AppRouter>['forecast']['run'];

const PAGE_SIZE = 50;
/** how often the page asks again while it shows a stale forecast (the server computes the new one meanwhile) */
const STALE_FORECAST_POLL_MS = 2_000;

const FORECAST_URL_DEFAULTS = { target: '', horizon: 60, minutes: 90, sector: '', q: '', page: 1 };

/** `n` rounded into [min, max]; `fallback` for 0 or not a number (an emptied field). */
const clampInt = (n: number, min: number, max: number, fallback: number) => Math.min(max, Math.max(min, Math.round(n) || fallback));

function daysBetween(a: string, b: string): string {
  return formatSpan(Date.parse(b) - Date.parse(a));
}

function notOfferedNote({ notOffered }: ForecastOutput['sectors'][number], target: string | null): string {
  return notOffered > 0 ? `${notOffered} cluster${notOffered === 1 ? ' is' : 's are'} never offered ${target} by their channel` : '';
}

/** Whether any what-if override is set (an empty list or an unticked box is no override). */
const hasOverrides = (w: WhatIf) => Object.values(w).some((v) => (Array.isArray(v) ? v.length > 0 : v === true));

export function ForecastView() {
  const trpc = useTRPC();
  // the inputs live in the address (?target=4.14.1&horizon=90&sector=prod&page=2); the what-if
  // overrides stay on the page (a what-if is a sketch, not a view to share)
  const [url, setUrl] = useUrlState(FORECAST_URL_DEFAULTS);
  const [form, setForm] = useState({ targetVersion: url.target, horizonDays: url.horizon, upgradeMinutes: url.minutes });
  useEffect(
    () => setForm({ targetVersion: url.target, horizonDays: url.horizon, upgradeMinutes: url.minutes }),
    [url.target, url.horizon, url.minutes],
  );
  const [whatIf, setWhatIf] = useState<WhatIf>({});
  const [overrides, setOverrides] = useState<WhatIf | undefined>(undefined);
  const params = {
    targetVersion: url.target.trim() || undefined,
    horizonDays: clampInt(url.horizon, 1, 120, 60),
    upgradeMinutes: clampInt(url.minutes, 5, 1440, 90),
    overrides,
  };
  const [search, setSearch] = useUrlText(url.q, (q) => setUrl({ q, page: 1 }, { replace: true }));
  const page = Math.max(0, Math.floor(url.page) - 1);
  const sector = url.sector;

  const input: RunInput = {
    ...params,
    sector: sector || undefined,
    search: url.q || undefined,
    offset: page * PAGE_SIZE,
    limit: PAGE_SIZE,
  };
  const run = useQuery({
    ...trpc.forecast.run.queryOptions(input),
    placeholderData: keepPreviousData,
    staleTime: 60_000,
    // a forecast from before the fleet's latest change is shown while the server computes the new one
    refetchInterval: (query) => (query.state.data?.stale ? STALE_FORECAST_POLL_MS : false),
  });
  const client = useTRPCClient();
  const [exporting, setExporting] = useState<'csv' | 'json' | null>(null);
  const [exportError, setExportError] = useState<string | null>(null);
  /** every cluster row the filters keep (all pages; the server keeps the forecast, so pages are cheap) */
  const exportAll = async (format: 'csv' | 'json') => {
    setExporting(format);
    setExportError(null);
    try {
      const rows = await fetchAllPages(
        (offset, limit) => client.forecast.run.query({ ...input, offset, limit }).then((r) => ({ items: r.rows, total: r.total })),
        200,
      );
      if (format === 'csv') download('forecast.csv', forecastCsv(rows));
      else download('forecast.json', JSON.stringify(rows, null, 2), 'application/json');
    } catch (err) {
      setExportError(err instanceof Error ? err.message : String(err));
    } finally {
      setExporting(null);
    }
  };
  const whatIfActive = hasOverrides(params.overrides ?? {});

  const apply = (e?: React.FormEvent) => {
    e?.preventDefault();
    setOverrides(hasOverrides(whatIf) ? whatIf : undefined);
    setUrl({
      target: form.targetVersion.trim(),
      horizon: clampInt(form.horizonDays, 1, 120, 60),
      minutes: clampInt(form.upgradeMinutes, 5, 1440, 90),
      page: 1,
    });
  };

  const sectorNames = useMemo(() => run.data?.sectors.map((s) => s.sector) ?? [], [run.data]);

  return (
    <>
      <section className="panel flush" aria-label="Forecast settings">
        <form className="toolbar" onSubmit={apply}>
          <label className="small muted" htmlFor="fc-target">
            Target version
          </label>
          <input
            id="fc-target"
            type="text"
            placeholder="newest offered"
            value={form.targetVersion}
            maxLength={100}
            onChange={(e) => setForm({ ...form, targetVersion: e.target.value })}
            style={{ width: 130 }}
          />
          <label className="small muted" htmlFor="fc-horizon">
            Horizon (days)
          </label>
          <input
            id="fc-horizon"
            type="number"
            min={1}
            max={120}
            value={form.horizonDays}
            onChange={(e) => setForm({ ...form, horizonDays: Number(e.target.value) })}
            style={{ width: 80 }}
          />
          <label className="small muted" htmlFor="fc-duration">
            Upgrade takes (min)
          </label>
          <input
            id="fc-duration"
            type="number"
            min={5}
            max={1440}
            value={form.upgradeMinutes}
            onChange={(e) => setForm({ ...form, upgradeMinutes: Number(e.target.value) })}
            style={{ width: 80 }}
          />
          <button className="btn primary" type="submit" disabled={run.isFetching}>
            {run.isFetching ? 'Simulating…' : 'Run forecast'}
          </button>
          {whatIfActive && <span className="badge warn">what-if: not saved</span>}
        </form>
        <WhatIfPanel value={whatIf} onChange={setWhatIf} sectors={sectorNames} onApply={() => apply()} />
      </section>

      <QueryState
        query={run}
        loadingRows={6}
        frame={(state) => (
          <section className="panel" aria-busy={run.isPending}>
            {run.isPending && (
              <p className="small muted" style={{ margin: 0 }}>
                Simulating the rollout with the decision engine… (large fleets take a few seconds)
              </p>
            )}
            {state}
            {run.isError && <ProblemList error={run.error} />}
          </section>
        )}
      >
        {(data) => (
          <>
            {data.frozen && (
              <div className="banner bad" role="status">
                The organization is frozen: nothing starts in this forecast. Tick “ignore freeze” in the what-if to see the rollout after
                the freeze.
              </div>
            )}
            {data.approvalGates.map((g) => (
              <div key={`${g.kind}|${g.sector}|${g.version}`} className="banner warn" role="status" data-testid="forecast-approval-gate">
                {g.heldSectors.join(', ')} start{g.heldSectors.length === 1 ? 's' : ''} {g.version} after approval
                {g.kind === 'before' ? '' : ` of ${g.sector}'s completion`}, earliest <ZonedTime iso={g.earliest} /> ({g.clusters} cluster
                {g.clusters === 1 ? '' : 's'} wait at the {g.kind === 'before' ? 'approval.before' : 'approval.after'} gate of {g.sector};
                the forecast assumes no approval is given). Approve on the Sectors page.
              </div>
            ))}
            {data.stale && (
              <div className="banner info" role="status" data-testid="forecast-stale">
                The fleet has changed since this forecast was computed (it starts at <ZonedTime iso={data.from} />
                ). A new one is being computed and replaces it here when it is ready.
              </div>
            )}
            {data.stats.truncated && (
              <div className="banner warn" role="status">
                The simulation stopped early (too many engine runs); later upgrades are missing.
              </div>
            )}
            <div className="grid-4">
              <div className="panel stat">
                <span className="label">Target</span>
                <span className="value mono" data-testid="forecast-target">
                  {data.targetVersion ?? '—'}
                </span>
                <span className="small muted">{params.targetVersion ? 'chosen' : 'newest version offered'}</span>
              </div>
              <div className="panel stat">
                <span className="label">Clusters on target by horizon</span>
                <span className="value">
                  {data.reachedClusters} / {data.managedClusters}
                </span>
                <span className="small muted">
                  until <ZonedTime iso={data.until} />
                </span>
              </div>
              <div className="panel stat">
                <span className="label">Predicted upgrades</span>
                <span className="value">{data.stats.upgrades}</span>
                <span className="small muted">
                  {data.upgradeMinutes} min each, {data.exclusions} exclusion window{data.exclusions === 1 ? '' : 's'}
                </span>
              </div>
              <div className="panel stat">
                <span className="label">Simulation</span>
                <span className="value">
                  {data.stale ? 'updating…' : data.cached ? 'cached' : `${(data.elapsedMs / 1000).toFixed(1)} s`}
                </span>
                <span className="small muted">
                  {data.stats.engineRuns} engine runs from <ZonedTime iso={data.from} />
                </span>
              </div>
            </div>

            <section className="panel flush" aria-label="When each sector has the target">
              <div className="toolbar">
                <h2 style={{ margin: 0 }}>When does each sector have {data.targetVersion ?? 'the target'}?</h2>
              </div>
              <DataTable
                id="forecast-sectors"
                label="Sectors on target"
                noun="sectors"
                rows={data.sectors}
                rowKey={(s) => s.sector}
                rowProps={(s) => ({ 'data-sector': s.sector })}
                empty={<EmptyState title="No sectors">The organization defines no sectors.</EmptyState>}
                columns={[
                  { id: 'sector', header: 'Sector', required: true, value: (s) => s.sector, cell: (s) => s.sector },
                  { id: 'clusters', header: 'Clusters', value: (s) => s.clusters, cell: (s) => s.clusters },
                  {
                    id: 'reached',
                    header: 'On target by horizon',
                    value: (s) => s.reached,
                    csv: (s) => `${s.reached} / ${s.clusters}`,
                    cell: (s) => `${s.reached} / ${s.clusters}`,
                  },
                  {
                    id: 'allReachAt',
                    header: 'All on target',
                    className: 'nowrap',
                    value: (s) => s.allReachAt,
                    cell: (s) =>
                      s.allReachAt ? (
                        <ZonedTime iso={s.allReachAt} />
                      ) : (
                        <span className="badge warn">not within {params.horizonDays} days</span>
                      ),
                  },
                  {
                    id: 'in',
                    header: 'In',
                    className: 'nowrap',
                    value: (s) => (s.allReachAt ? Date.parse(s.allReachAt) - Date.parse(data.from) : null),
                    csv: (s) => (s.allReachAt ? daysBetween(data.from, s.allReachAt) : null),
                    cell: (s) => (s.allReachAt ? daysBetween(data.from, s.allReachAt) : '—'),
                  },
                  {
                    id: 'note',
                    header: 'Note',
                    className: 'small muted',
                    value: (s) => notOfferedNote(s, data.targetVersion),
                    cell: (s) => notOfferedNote(s, data.targetVersion),
                  },
                ]}
              />
            </section>

            <section className="panel flush" aria-label="Predicted upgrades per cluster">
              <div className="toolbar">
                <h2 style={{ margin: 0 }}>Predicted upgrades</h2>
                <select aria-label="Sector" value={sector} onChange={(e) => setUrl({ sector: e.target.value, page: 1 })}>
                  <option value="">Sector: all</option>
                  {sectorNames.map((s) => (
                    <option key={s}>{s}</option>
                  ))}
                </select>
                <input
                  type="search"
                  aria-label="Search clusters"
                  placeholder="Search cluster…"
                  value={search}
                  onChange={(e) => setSearch(e.target.value)}
                />
                <span className="small muted">{data.total} clusters</span>
                <span style={{ marginLeft: 'auto', display: 'flex', gap: 6 }}>
                  <button type="button" className="btn" disabled={exporting !== null} onClick={() => void exportAll('csv')}>
                    {exporting === 'csv' ? 'CSV…' : 'CSV'}
                  </button>
                  <button type="button" className="btn" disabled={exporting !== null} onClick={() => void exportAll('json')}>
                    {exporting === 'json' ? 'JSON…' : 'JSON'}
                  </button>
                </span>
              </div>
              {exportError && (
                <div className="banner bad small" role="alert" style={{ margin: 12 }}>
                  Download failed: {exportError}
                </div>
              )}
              {data.rows.length === 0 ? <EmptyState title="No clusters match" /> : <ForecastGantt data={data} />}
              <Pager
                offset={page * PAGE_SIZE}
                limit={PAGE_SIZE}
                total={data.total}
                onOffset={(offset) => setUrl({ page: Math.floor(offset / PAGE_SIZE) + 1 })}
                busy={run.isFetching}
                noun="clusters"
              />
            </section>
          </>
        )}
      </QueryState>
    </>
  );
}

/** The policy problems the server sends with a refused what-if (BAD_REQUEST), one per line. */
function ProblemList({ error }: { error: { data?: unknown } }) {
  const data = error.data;
  const problems =
    data && typeof data === 'object' && 'problems' in data && Array.isArray(data.problems)
      ? (data.problems as { path: string; message: string }[])
      : [];
  if (problems.length === 0) return null;
  return (
    <ul className="small" style={{ color: 'var(--bad)' }}>
      {problems.map((p) => (
        <li key={p.path + p.message}>
          <code>{p.path}</code>: {p.message}
        </li>
      ))}
    </ul>
  );
}

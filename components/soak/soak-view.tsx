'use client';
// Soak over time for one (version, workload) against the thresholds of the clusters waiting for
// it, with when each threshold is reached at today's rate (one day per day per healthy cluster).
import { useQuery } from '@tanstack/react-query';
import { CartesianGrid, ComposedChart, Legend, Line, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { useMemo } from 'react';
import { useTRPC } from '@/components/trpc/client';
import { formatUtc } from '@/components/ui/zoned-time';
import { ZonedTime } from '@/components/ui/zoned-time-view';
import { formatDays } from '@/components/ui/format';
import { EmptyState } from '@/components/ui/states';
import { QueryState } from '@/components/ui/query-state';
import { DataTable } from '@/components/ui/data-table';
import { useUrlState } from '@/components/ui/use-url-state';

const THRESHOLD_COLORS = ['#d29922', '#a371f7', '#f85149', '#3fb950', '#db61a2', '#8b949e'];
/** measured and projected soak: two colours, so the legend tells them apart (and neither is a threshold's) */
const MEASURED_COLOR = '#4c9aff';
const PROJECTED_COLOR = '#2dba9c';

function utcTick(spanMs: number) {
  // short spans show hours too, so ticks do not repeat the same day
  return (ms: number) =>
    spanMs < 4 * 86_400_000 ? new Date(ms).toISOString().slice(5, 16).replace('T', ' ') : new Date(ms).toISOString().slice(5, 10);
}

const SOAK_URL_DEFAULTS = { version: '', workload: '' };

export function SoakView() {
  const trpc = useTRPC();
  const versions = useQuery(trpc.soak.versions.queryOptions());
  // the chosen pair lives in the address (?version=4.13.41&workload=hive); none chosen shows the server's default
  const [url, setUrl] = useUrlState(SOAK_URL_DEFAULTS);
  const fallback = versions.data?.default ?? null;
  const selected = useMemo(
    () => (url.version && url.workload ? { version: url.version, workload: url.workload } : fallback),
    [url.version, url.workload, fallback],
  );
  const setSelected = (next: { version: string; workload: string } | null) => setUrl(next ?? { version: '', workload: '' });

  const options = useMemo(() => versions.data?.options ?? [], [versions.data]);
  const versionList = useMemo(() => [...new Set(options.map((o) => o.version))], [options]);
  const workloadList = useMemo(() => options.filter((o) => o.version === selected?.version), [options, selected]);

  const series = useQuery({ ...trpc.soak.series.queryOptions(selected ?? { version: '-', workload: '-' }), enabled: selected !== null });

  const chart = useMemo(() => {
    const d = series.data;
    if (!d) return null;
    const points: { ts: number; soak?: number; projected?: number }[] = d.samples.map((s) => ({ ts: Date.parse(s.at), soak: s.soakDays }));
    for (const p of d.projection) {
      const ts = Date.parse(p.at);
      const same = points.find((x) => x.ts === ts);
      if (same) same.projected = p.soakDays;
      else points.push({ ts, projected: p.soakDays });
    }
    points.sort((a, b) => a.ts - b.ts);
    const maxY = Math.max(1, d.soakDays, ...d.thresholds.map((t) => t.soakDays), ...d.samples.map((s) => s.soakDays));
    const span = points.length ? points[points.length - 1]!.ts - points[0]!.ts : 0;
    return { points, maxY: Math.ceil(maxY * 1.12), tick: utcTick(span) };
  }, [series.data]);

  return (
    <QueryState
      query={versions}
      loadingRows={5}
      frame={(state) => <section className="panel">{state}</section>}
      isEmpty={() => options.length === 0}
      empty={{ title: 'Nothing to soak', hint: 'No managed cluster is offered a newer version right now.' }}
    >
      {() => (
        <>
          <section className="panel flush" aria-label="Choose version and workload">
            <div className="toolbar">
              <label className="small muted" htmlFor="soak-version">
                Version
              </label>
              <select
                id="soak-version"
                value={selected?.version ?? ''}
                onChange={(e) => {
                  const v = e.target.value;
                  const first = options.filter((o) => o.version === v).sort((a, b) => b.waiting - a.waiting)[0];
                  setSelected(first ? { version: v, workload: first.workload } : null);
                }}
              >
                {versionList.map((v) => {
                  const waiting = options.filter((o) => o.version === v).reduce((n, o) => n + o.waiting, 0);
                  return (
                    <option key={v} value={v}>
                      {v}
                      {waiting ? ` (${waiting} waiting)` : ''}
                    </option>
                  );
                })}
              </select>
              <label className="small muted" htmlFor="soak-workload">
                Workload
              </label>
              <select
                id="soak-workload"
                value={selected?.workload ?? ''}
                onChange={(e) => selected && setSelected({ version: selected.version, workload: e.target.value })}
              >
                {workloadList.map((o) => (
                  <option key={o.workload} value={o.workload}>
                    {o.workload} ({o.waiting} of {o.offered} waiting)
                  </option>
                ))}
              </select>
            </div>
          </section>
          {selected && (
            <QueryState query={series} loadingRows={6} frame={(state) => <section className="panel">{state}</section>}>
              {(d) =>
                chart && (
                  <>
                    <div className="grid-4">
                      <div className="panel stat">
                        <span className="label">Soaked</span>
                        <span className="value">{formatDays(d.soakDays)} d</span>
                        <span className="small muted">
                          cluster-days of {d.version} for {d.workload}
                        </span>
                      </div>
                      <div className="panel stat">
                        <span className="label">Rate</span>
                        <span className="value">+{d.ratePerDay} d/day</span>
                        <span className="small muted">healthy clusters running it now</span>
                      </div>
                      <div className="panel stat">
                        <span className="label">Waiting</span>
                        <span className="value">{d.thresholds.filter((t) => !t.reached).reduce((n, t) => n + t.clusters, 0)}</span>
                        <span className="small muted">clusters below their threshold</span>
                      </div>
                      <div className="panel stat">
                        <span className="label">As of</span>
                        <span className="value" style={{ fontSize: 16 }}>
                          <ZonedTime iso={d.now} />
                        </span>
                        <span className="small muted">samples: daily, last 60 days</span>
                      </div>
                    </div>
                    <section className="panel" aria-label="Soak over time">
                      <h2>
                        Soak of {d.version} for {d.workload} (UTC days)
                      </h2>
                      {d.samples.length === 0 && d.projection.length === 0 ? (
                        <EmptyState title="No soak yet">
                          No healthy cluster runs {d.version} with workload {d.workload}, so its soak does not grow.
                        </EmptyState>
                      ) : (
                        <div style={{ width: '100%', height: 340 }}>
                          <ResponsiveContainer>
                            <ComposedChart data={chart.points} margin={{ top: 12, right: 150, bottom: 4, left: 0 }}>
                              <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" />
                              <XAxis
                                dataKey="ts"
                                type="number"
                                scale="time"
                                domain={['dataMin', 'dataMax']}
                                tickFormatter={chart.tick}
                                tick={{ fontSize: 11, fill: 'var(--muted)' }}
                              />
                              <YAxis
                                domain={[0, chart.maxY]}
                                tick={{ fontSize: 11, fill: 'var(--muted)' }}
                                label={{ value: 'soak days', angle: -90, position: 'insideLeft', fill: 'var(--muted)', fontSize: 11 }}
                              />
                              <Tooltip
                                labelFormatter={(v) => formatUtc(new Date(Number(v)).toISOString())}
                                formatter={(value, name) => [`${formatDays(Number(value))} d`, name]}
                                contentStyle={{
                                  background: 'var(--panel)',
                                  border: '1px solid var(--border)',
                                  fontSize: 12,
                                  color: 'var(--text)',
                                }}
                              />
                              <Legend wrapperStyle={{ fontSize: 12 }} />
                              {d.thresholds.map((t, i) => (
                                <ReferenceLine
                                  key={t.soakDays}
                                  y={t.soakDays}
                                  stroke={THRESHOLD_COLORS[i % THRESHOLD_COLORS.length]}
                                  strokeDasharray="6 4"
                                  label={{
                                    value: `${t.soakDays} d · ${t.clusters} cluster${t.clusters === 1 ? '' : 's'}${t.reached ? ' ✓' : ''}`,
                                    position: 'right',
                                    fill: 'var(--text)',
                                    fontSize: 11,
                                  }}
                                />
                              ))}
                              <Line
                                type="linear"
                                dataKey="soak"
                                name="soak (measured)"
                                stroke={MEASURED_COLOR}
                                strokeWidth={2}
                                dot={false}
                                connectNulls
                                isAnimationActive={false}
                              />
                              <Line
                                type="linear"
                                dataKey="projected"
                                name="projected at current rate"
                                stroke={PROJECTED_COLOR}
                                strokeDasharray="4 4"
                                dot={false}
                                connectNulls
                                isAnimationActive={false}
                              />
                            </ComposedChart>
                          </ResponsiveContainer>
                        </div>
                      )}
                    </section>
                    <section className="panel flush" aria-label="Thresholds and estimated dates">
                      <div className="toolbar">
                        <h2 style={{ margin: 0 }}>Thresholds → estimated date</h2>
                      </div>
                      <DataTable
                        id="soak-thresholds"
                        label="Soak thresholds"
                        noun="thresholds"
                        rows={d.thresholds}
                        rowKey={(t) => t.soakDays}
                        rowProps={(t) => ({ 'data-threshold': t.soakDays })}
                        empty={<EmptyState title="No cluster waits for a soak threshold" />}
                        columns={[
                          {
                            id: 'threshold',
                            header: 'soakDays threshold',
                            required: true,
                            value: (t) => t.soakDays,
                            cell: (t) => `${t.soakDays} d`,
                          },
                          { id: 'clusters', header: 'Clusters at it', value: (t) => t.clusters, cell: (t) => t.clusters },
                          {
                            id: 'needed',
                            header: 'Still needed',
                            value: (t) => (t.reached ? null : t.soakDays - d.soakDays),
                            cell: (t) => (t.reached ? '—' : `${formatDays(t.soakDays - d.soakDays)} cluster-days`),
                          },
                          {
                            id: 'eta',
                            header: 'Estimated',
                            className: 'nowrap',
                            value: (t) => (t.reached ? 'reached' : t.eta),
                            cell: (t) =>
                              t.reached ? (
                                <span className="badge ok">reached</span>
                              ) : t.eta ? (
                                <ZonedTime iso={t.eta} />
                              ) : (
                                <span className="badge warn">never at the current rate</span>
                              ),
                          },
                          {
                            id: 'in',
                            header: 'In',
                            className: 'nowrap',
                            value: (t) => (t.reached ? null : t.daysFromNow),
                            cell: (t) => (t.daysFromNow === null || t.reached ? '—' : `${formatDays(t.daysFromNow)} days`),
                          },
                        ]}
                      />
                    </section>
                  </>
                )
              }
            </QueryState>
          )}
        </>
      )}
    </QueryState>
  );
}

'use client';
// How many clusters run each version, split by upgrade state. A bar segment filters the Fleet
// table below (through the address) to the clusters it counts.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { useTRPC } from '@/components/trpc/client';
import { QueryState } from '@/components/ui/query-state';
import { useUrlState } from '@/components/ui/use-url-state';
import { FLEET_URL_DEFAULTS, useCheckedSelector } from './fleet-table';

const STATES = [
  { key: 'idle', color: '#5b8def', label: 'idle' },
  { key: 'scheduled', color: '#a371f7', label: 'scheduled' },
  { key: 'upgrading', color: '#3fb950', label: 'upgrading' },
  { key: 'failed', color: '#f85149', label: 'failed' },
];

export function VersionDistributionChart() {
  const trpc = useTRPC();
  const [url, setUrl] = useUrlState(FLEET_URL_DEFAULTS);
  const { selector } = useCheckedSelector(url.selector);
  // the table's filters, but not the version and state the bars themselves pick
  const filter = {
    search: url.q || undefined,
    sector: url.sector || undefined,
    workload: url.workload || undefined,
    reason: url.reason || undefined,
    label: url.label || undefined,
    selector,
    region: url.region || undefined,
    neverUpgrades: url.never === '1' || undefined,
  };
  const filtered = Object.values(filter).some(Boolean);
  const q = useQuery({ ...trpc.clusters.versionDistribution.queryOptions({ filter }), placeholderData: keepPreviousData });
  const showClusters = (version: string, state: string) => setUrl({ version, state, page: 1 });
  return (
    <section className="panel" aria-label="Version distribution">
      <h2>Versions in the fleet</h2>
      <p className="small muted" style={{ marginTop: 0 }}>
        Clusters per version{filtered ? ", of the clusters the table's filters select" : ''}; click a bar to list those clusters.
        {(url.version || url.state) && (
          <>
            {' '}
            <button type="button" className="link-button" onClick={() => setUrl({ version: '', state: '', page: 1 })}>
              Show all versions
            </button>
          </>
        )}
      </p>
      <QueryState query={q} loadingRows={3}>
        {(data) => (
          <div style={{ width: '100%', height: 220 }}>
            <ResponsiveContainer>
              <BarChart data={data} margin={{ top: 4, right: 8, bottom: 4, left: -16 }}>
                <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" vertical={false} />
                <XAxis
                  dataKey="version"
                  tick={{ fontSize: 11, fill: 'var(--muted)' }}
                  interval={0}
                  angle={-30}
                  textAnchor="end"
                  height={46}
                />
                <YAxis
                  allowDecimals={false}
                  tick={{ fontSize: 11, fill: 'var(--muted)' }}
                  label={{ value: 'clusters', angle: -90, position: 'insideLeft', offset: 24, fill: 'var(--muted)', fontSize: 11 }}
                />
                <Tooltip contentStyle={{ background: 'var(--panel)', border: '1px solid var(--border)', fontSize: 12 }} />
                <Legend wrapperStyle={{ fontSize: 12 }} />
                {STATES.map((s) => (
                  <Bar
                    key={s.key}
                    dataKey={s.key}
                    name={s.label}
                    stackId="a"
                    fill={s.color}
                    cursor="pointer"
                    onClick={(bar: { payload?: { version?: string } }) => bar.payload?.version && showClusters(bar.payload.version, s.key)}
                  />
                ))}
              </BarChart>
            </ResponsiveContainer>
          </div>
        )}
      </QueryState>
    </section>
  );
}

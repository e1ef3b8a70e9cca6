'use client';
// The editor's forecast impact: the fleet forecast with the stored policies vs. with the change,
// over the next days: who reaches the target sooner, later, no longer or now, and who upgrades
// along other versions (server/domain/forecast/forecast-diff.ts).
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';
import { ClusterLink } from '@/components/ui/cluster-link';
import { DataTable, type Column } from '@/components/ui/data-table';
import { QueryState, type QueryLike } from '@/components/ui/query-state';
import { EmptyState } from '@/components/ui/states';
import { formatUtc } from '@/components/ui/zoned-time';

type ForecastImpact = inferRouterOutputs<AppRouter>['policies']['previewForecastImpact'];
type Diff = NonNullable<ForecastImpact['diff']>;
type Change = Diff['changes'][number];
type Side = Change['before'];

const KIND_LABEL: Record<Change['kind'], string> = {
  'no-longer': 'no longer reaches the target',
  later: 'reaches it later',
  'other-versions': 'other versions',
  sooner: 'reaches it sooner',
  'now-reaches': 'now reaches it',
};
const KIND_TONE: Record<Change['kind'], string> = {
  'no-longer': 'bad',
  later: 'warn',
  'other-versions': '',
  sooner: 'ok',
  'now-reaches': 'ok',
};

function sideText(s: Side): string {
  const reach = s.reachesTargetAt ? `target ${formatUtc(s.reachesTargetAt)}` : 'target not reached';
  const path = s.upgrades.length ? s.upgrades.map((u) => u.version).join(' → ') : 'no upgrade';
  return `${reach}; ${path}`;
}

function SideCell({ side }: { side: Side }) {
  return (
    <div>
      {side.reachesTargetAt ? (
        <span className="small">reaches the target {formatUtc(side.reachesTargetAt)}</span>
      ) : (
        <span className="small muted">does not reach the target</span>
      )}
      <div className="mono small">
        {side.upgrades.length ? side.upgrades.map((u) => u.version).join(' → ') : <span className="muted">no upgrade</span>}
      </div>
    </div>
  );
}

const COLUMNS: Column<Change>[] = [
  { id: 'cluster', header: 'Cluster', value: (c) => c.cluster, cell: (c) => <ClusterLink name={c.cluster} /> },
  { id: 'sector', header: 'Sector', value: (c) => c.sector ?? '', cell: (c) => c.sector ?? <span className="muted">none</span> },
  {
    id: 'kind',
    header: 'Change',
    value: (c) => KIND_LABEL[c.kind],
    cell: (c) => <span className={`badge ${KIND_TONE[c.kind]}`}>{KIND_LABEL[c.kind]}</span>,
  },
  { id: 'before', header: 'Stored policies', value: (c) => sideText(c.before), cell: (c) => <SideCell side={c.before} /> },
  { id: 'after', header: 'With your change', value: (c) => sideText(c.after), cell: (c) => <SideCell side={c.after} /> },
];

function summary(d: Diff): string {
  const parts = (Object.keys(KIND_LABEL) as Change['kind'][]).filter((k) => d.counts[k] > 0).map((k) => `${d.counts[k]} ${KIND_LABEL[k]}`);
  return parts.length ? parts.join(' · ') : 'no change';
}

export function ForecastImpactPanel({ impact }: { impact: QueryLike<ForecastImpact> | null }) {
  return (
    <section className="panel flush" aria-labelledby="forecast-impact-h">
      <div className="toolbar">
        <h2 id="forecast-impact-h" style={{ margin: 0 }}>
          Forecast impact
        </h2>
        <span className="small muted">
          the forecast with the stored policies vs. with your change
          {impact?.data?.ok && impact.data.diff && (
            <>
              , next {impact.data.horizonDays} days, target <span className="mono">{impact.data.diff.targetVersion ?? 'none'}</span>
            </>
          )}
        </span>
        {impact?.data?.ok && impact.data.diff && (
          <span className="small" style={{ marginLeft: 'auto' }} data-testid="forecast-impact-summary">
            {impact.data.diff.changes.length} of {impact.data.diff.compared} clusters change: {summary(impact.data.diff)}
          </span>
        )}
      </div>
      {!impact ? (
        <EmptyState title="Make a valid change to see how it moves the rollout" />
      ) : (
        <QueryState
          query={impact}
          loadingRows={3}
          isEmpty={(data) => !data.ok || !data.diff || data.diff.changes.length === 0}
          empty={(data) =>
            data.ok && data.diff
              ? {
                  title: 'The forecast does not change',
                  hint: `Every one of the ${data.diff.compared} managed clusters upgrades the same way over the next ${data.horizonDays} days.`,
                }
              : (data.problems[0]?.message ?? 'Fix the problems first')
          }
        >
          {(data) =>
            data.diff && (
              <DataTable
                id="policy-forecast-impact"
                label="Forecast changes"
                pageSize={25}
                noun="clusters"
                rows={data.diff.changes}
                columns={COLUMNS}
                rowKey={(c) => c.cluster}
              />
            )
          }
        </QueryState>
      )}
    </section>
  );
}

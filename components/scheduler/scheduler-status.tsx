'use client';
// Scheduler state (loop, pause, provider, interval, lease, last tick, health gate) and its
// controls: run a tick now, a dry run, pause/resume, health gate on/off (operators).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';
import { useTRPC } from '@/components/trpc/client';
import { QueryState } from '@/components/ui/query-state';
import { OPERATOR_ONLY, useRole } from './use-role';
import { formatDuration, formatRelative, isoOf } from '@/components/ui/zoned-time';
import { ZonedTime } from '@/components/ui/zoned-time-view';
import { OrgLink } from '@/components/shell/org-link';

type RunResult = inferRouterOutputs<AppRouter>['scheduler']['runNow'];
type Summary = Partial<Record<string, number>>;

export const TICK_TONE: Record<string, string> = { succeeded: 'ok', failed: 'bad', running: 'info' };

/** Duration of a tick: the summary's own figure, else finished − started. */
export function tickDurationMs(t: { startedAt: Date | string; finishedAt: Date | string | null; summary: Summary | null }): number | null {
  if (typeof t.summary?.durationMs === 'number') return t.summary.durationMs;
  const a = isoOf(t.startedAt);
  const b = isoOf(t.finishedAt);
  return a && b ? Date.parse(b) - Date.parse(a) : null;
}

export function SummaryCounts({ summary }: { summary: Summary }) {
  const n = (k: string) => summary[k] ?? 0;
  return (
    <div className="sch-counts" data-testid="tick-summary">
      <span>
        <b>{n('clusters')}</b> clusters
      </span>
      <span>
        <b>{n('upgrades')}</b> upgrades
      </span>
      <span>
        <b>{n('skips')}</b> skips
      </span>
      <span>
        <b>{n('cancels')}</b> cancels
      </span>
      <span>
        <b>{n('decisionsRecorded')}</b> decisions recorded
      </span>
      <span>
        <b>{n('intentsCreated')}</b> actions created · <b>{n('intentsDone')}</b> done · <b>{n('intentsFailed')}</b> failed
      </span>
      {n('reconciled') > 0 && (
        <span>
          <b>{n('reconciled')}</b> reconciled
        </span>
      )}
      <span>
        <b>{n('events')}</b> webhook events
      </span>
    </div>
  );
}

function useNowMs(everyMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(id);
  }, [everyMs]);
  return now;
}

export function SchedulerStatus() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const { canOperate } = useRole();
  const nowMs = useNowMs(5000);
  const status = useQuery({ ...trpc.scheduler.status.queryOptions(), refetchInterval: 5000 });
  const [lastRun, setLastRun] = useState<{ dryRun: boolean; result: RunResult } | null>(null);

  const refresh = () => {
    void qc.invalidateQueries({ queryKey: trpc.scheduler.pathKey() });
    void qc.invalidateQueries({ queryKey: trpc.activity.pathKey() });
    void qc.invalidateQueries({ queryKey: trpc.fleet.pathKey() });
    void qc.invalidateQueries({ queryKey: trpc.clusters.pathKey() });
  };
  const run = useMutation(
    trpc.scheduler.runNow.mutationOptions({
      onSuccess: (result, input) => setLastRun({ dryRun: input.dryRun ?? false, result }),
      onSettled: refresh,
    }),
  );
  const pause = useMutation(trpc.scheduler.pause.mutationOptions({ onSettled: refresh }));
  const resume = useMutation(trpc.scheduler.resume.mutationOptions({ onSettled: refresh }));
  const gate = useMutation(trpc.scheduler.setHealthGate.mutationOptions({ onSettled: refresh }));

  // loading and error through the shared wrapper; the status view below needs the hooks above it
  if (status.isPending || status.isError)
    return (
      <QueryState query={status} loadingRows={4} frame={(state) => <section className="panel">{state}</section>}>
        {() => null}
      </QueryState>
    );
  const s = status.data;
  const last = s.lastTick;
  const busy = run.isPending || s.runtime.running;
  const controlError = run.error ?? pause.error ?? resume.error ?? gate.error;

  return (
    <section className="panel" aria-labelledby="sch-status-h">
      <div className="sch-section-head" style={{ marginBottom: 12 }}>
        <h2 id="sch-status-h" style={{ margin: 0 }}>
          Status
        </h2>
        <span className="small muted">refreshes every 5 s · tick times are fleet time (the simulator's clock when it runs)</span>
      </div>
      <div className="sch-status">
        <div className="stat">
          <span className="label">State</span>
          <span className="value" data-testid="scheduler-state">
            {s.paused ? (
              <span className="badge warn">paused</span>
            ) : s.runtime.started ? (
              <span className="badge ok">running</span>
            ) : (
              <span className="badge">loop off</span>
            )}
            {s.runtime.running && <span className="badge info">tick in progress</span>}
          </span>
          <span className="sub">
            {s.runtime.started
              ? s.paused
                ? 'ticks skipped until resumed'
                : s.runtime.nextTickAt
                  ? `next tick ${formatRelative(s.runtime.nextTickAt, nowMs)}`
                  : ''
              : 'no loop in this server process (FLEETPLAN_SCHEDULER=off); ticks run only on demand'}
          </span>
        </div>
        <div className="stat">
          <span className="label">Provider</span>
          <span className="value mono">{s.provider}</span>
          <span className="sub">every {s.intervalSeconds} s</span>
        </div>
        <div className="stat">
          <span className="label">Lease</span>
          <span className="value">
            {s.lease ? (
              <>
                <span className="mono sch-wrap" style={{ fontSize: 13 }}>
                  {s.lease.holder}
                </span>
                <span className={`badge ${s.lease.valid ? 'ok' : ''}`}>{s.lease.valid ? 'held' : 'expired'}</span>
              </>
            ) : (
              <span className="muted">nobody</span>
            )}
          </span>
          <span className="sub">
            {s.lease
              ? `${s.lease.valid ? 'expires' : 'expired'} ${formatRelative(s.lease.expiresAt, nowMs)}${s.lease.holder === s.runtime.holder ? ' · this process' : ''}`
              : 'taken by the first tick'}
          </span>
        </div>
        <div className="stat">
          <span className="label">Last tick</span>
          <span className="value">
            {last ? (
              <>
                <span className={`badge ${TICK_TONE[last.status] ?? ''}`}>{last.status}</span>
                {last.dryRun && <span className="badge info">dry run</span>}
                <span className="small">{formatDuration(tickDurationMs(last))}</span>
              </>
            ) : (
              <span className="muted">never</span>
            )}
          </span>
          <span className="sub">
            {last ? (
              <>
                #{last.id} · <ZonedTime iso={last.startedAt} relative />
              </>
            ) : (
              'no tick recorded yet'
            )}
          </span>
        </div>
        <div className="stat">
          <span className="label">Health gate</span>
          <span className="value">{s.healthGate ? <span className="badge ok">on</span> : <span className="badge warn">off</span>}</span>
          <span className="sub">{s.healthGate ? 'unhealthy clusters are skipped' : 'health is not checked before upgrading'}</span>
        </div>
      </div>

      <div className="sch-controls">
        <button
          type="button"
          className="btn primary"
          disabled={!canOperate || busy}
          title={canOperate ? 'Run one tick now: decide and act on the fleet' : OPERATOR_ONLY}
          onClick={() => run.mutate({ dryRun: false })}
        >
          {run.isPending && !run.variables?.dryRun ? 'Running…' : 'Run now'}
        </button>
        <button
          type="button"
          className="btn"
          disabled={!canOperate || busy}
          title={canOperate ? 'Decide and record decisions, but trigger nothing' : OPERATOR_ONLY}
          onClick={() => run.mutate({ dryRun: true })}
        >
          {run.isPending && run.variables?.dryRun ? 'Dry running…' : 'Dry run'}
        </button>
        <span className="sep" aria-hidden="true" />
        {s.paused ? (
          <button
            type="button"
            className="btn"
            disabled={!canOperate || resume.isPending}
            title={canOperate ? undefined : OPERATOR_ONLY}
            onClick={() => resume.mutate()}
          >
            Resume scheduler
          </button>
        ) : (
          <button
            type="button"
            className="btn"
            disabled={!canOperate || pause.isPending}
            title={canOperate ? 'Stop the loop from ticking (manual runs still work)' : OPERATOR_ONLY}
            onClick={() => pause.mutate()}
          >
            Pause scheduler
          </button>
        )}
        <label
          className="btn"
          title={canOperate ? 'Skip clusters that report critical alerts or degraded operators' : OPERATOR_ONLY}
          style={{ cursor: canOperate ? 'pointer' : 'not-allowed', opacity: canOperate ? 1 : 0.55 }}
        >
          <input
            type="checkbox"
            checked={s.healthGate}
            disabled={!canOperate || gate.isPending}
            onChange={(e) => gate.mutate({ enabled: e.target.checked })}
          />
          Health gate
        </label>
        {!canOperate && <span className="small muted">Read-only: your role cannot run or change the scheduler.</span>}
      </div>

      {controlError && (
        <div className="banner bad small" role="alert" style={{ marginTop: 12 }}>
          {controlError.message}
        </div>
      )}
      {lastRun && !run.isPending && (
        <div className="sch-result" data-testid="run-result" aria-live="polite">
          {'summary' in lastRun.result ? (
            <div
              className={`banner ${lastRun.dryRun ? 'info' : 'ok'}`}
              style={lastRun.dryRun ? undefined : { background: 'var(--ok-weak)', borderColor: 'var(--ok)', color: 'var(--ok)' }}
            >
              <div style={{ marginBottom: 4 }}>
                <strong>
                  {lastRun.dryRun ? 'Dry run' : 'Tick'} #{lastRun.result.tickId} succeeded
                </strong>{' '}
                in {formatDuration(lastRun.result.summary.durationMs)}
                {lastRun.dryRun ? ' — decisions recorded, nothing was triggered.' : '.'}{' '}
                <OrgLink href="/activity?tab=decisions">See the decisions</OrgLink>
              </div>
              <SummaryCounts summary={lastRun.result.summary} />
            </div>
          ) : (
            <div className="banner bad">
              <strong>
                {lastRun.dryRun ? 'Dry run' : 'Tick'} #{lastRun.result.tickId} failed:
              </strong>{' '}
              {'error' in lastRun.result ? lastRun.result.error : 'unknown error'}
            </div>
          )}
        </div>
      )}
    </section>
  );
}

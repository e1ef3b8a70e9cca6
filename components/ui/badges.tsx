// Small status badges used across pages.
import type { ReactNode } from 'react';

const STATE_TONE: Record<string, string> = { idle: '', scheduled: 'info', upgrading: 'accent', failed: 'bad', gone: 'warn' };
const REASON_TONE: Record<string, string> = {
  UPGRADE_PENDING: 'info',
  NOT_SOAKED: 'warn',
  SECTOR_BEHIND: 'warn',
  MUTEX_LOCKED: 'warn',
  MAX_PARALLEL_UPGRADES: 'warn',
  MAX_CONCURRENT_UPGRADES: 'warn',
  AT_TARGET: 'ok',
  ABOVE_CAP: 'info',
  VERSION_GATE: 'warn',
  OPERATOR_INCOMPATIBLE: 'warn',
  REMOVED_API_IN_USE: 'warn',
  AWAITING_APPROVAL: 'warn',
  NOT_BEFORE: 'info',
  VERSION_BLOCKED: 'bad',
  OUTSIDE_WINDOW: '',
  NO_AVAILABLE_UPGRADES: 'ok',
  NO_ROUTE: 'bad',
  SUSPENDED: 'bad',
  FROZEN: 'bad',
  UNHEALTHY: 'bad',
  EXCLUDED: 'bad',
};

export function StateBadge({ state, progress }: { state: string; progress?: number }) {
  return (
    <span className={`badge ${STATE_TONE[state] ?? ''}`}>
      {state}
      {progress !== undefined && state === 'upgrading' ? ` ${Math.round(progress * 100)}%` : ''}
    </span>
  );
}

export function DecisionBadge({ action, reason }: { action: string; reason: string | null }) {
  if (action === 'upgrade') return <span className="badge ok">upgrade</span>;
  if (action === 'cancel') return <span className="badge bad">cancel</span>;
  return <span className={`badge ${REASON_TONE[reason ?? ''] ?? ''}`}>{reason ?? action}</span>;
}

export function HealthBadge({ healthy, issues }: { healthy: boolean; issues: string[] }) {
  return healthy ? (
    <span className="badge ok">healthy</span>
  ) : (
    <span className="badge bad" title={issues.join('\n')}>
      unhealthy
    </span>
  );
}

/** A wrapping row of name badges (workloads, mutexes, events); `empty` shows in its place when there are none. */
export function BadgeList({ items, tone = '', empty }: { items: readonly string[]; tone?: string; empty?: ReactNode }) {
  return (
    <div className="chips">
      {items.length === 0
        ? empty
        : items.map((item) => (
            <span key={item} className={`badge ${tone}`.trim()}>
              {item}
            </span>
          ))}
    </div>
  );
}

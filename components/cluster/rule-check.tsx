// One engine rule with pass/fail, its message and its numbers.
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';

type Explain = NonNullable<inferRouterOutputs<AppRouter>['clusters']['explain']['explanation']>;
export type RuleCheck = Explain['checks'][number];

export const RULE_LABEL: Record<string, string> = {
  pending: 'No pending upgrade',
  suspend: 'Schedule not suspended',
  notBefore: "Sector's notBefore (start gate)",
  schedule: 'Maintenance window (next run within 2 h)',
  mutex: 'Mutexes / max parallel / at once',
  available: 'Available upgrades',
  route: 'Route to the target (path solver)',
  blocked: 'Not blocked',
  bound: 'Within the targets and caps',
  sector: 'Sector order',
  soak: 'Soak',
  approval: 'Approval gate',
  canary: "Sector's canaries (completed and soaked first)",
  hold: 'Held by the cluster (version gate, operator, removed API)',
};

/** The scheduler's gates, shown after the engine's rules. */
export const GATE_LABEL: Record<string, string> = {
  freeze: 'Gate: organization not frozen',
  exclusion: 'Gate: no maintenance exclusion',
  health: 'Gate: health',
  provider: 'Gate: provider read the cluster',
  halt: 'Gate: no unacknowledged failure halts it',
  'version-gate': 'Gate: no provider version gate pending',
  operators: 'Gate: installed operators support the version',
  'removed-apis': 'Gate: no API it removes is in use',
};

export function PassMark({ pass }: { pass: boolean }) {
  return pass ? (
    <span className="badge ok" aria-label="passed">
      ✓ pass
    </span>
  ) : (
    <span className="badge bad" aria-label="failed">
      ✗ fail
    </span>
  );
}

export function SoakBar({ soaked, required }: { soaked: number; required: number | null }) {
  const ratio = required === null || required === 0 ? 1 : Math.min(1, soaked / required);
  return (
    <span className="progress" title={`${soaked.toFixed(2)} of ${required ?? '—'} days`}>
      <span style={{ width: `${Math.round(ratio * 100)}%`, background: ratio >= 1 ? 'var(--ok)' : 'var(--warn)' }} />
    </span>
  );
}

'use client';
// Every candidate version against every version rule: blocked (which regex, why), sector (which
// cluster of which sector runs what) and soak per workload ("2.35 of 4 days").
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc/client';
import { DataTable, type Column } from '@/components/ui/data-table';
import { PassMark, SoakBar, type RuleCheck } from './rule-check';
import './cluster.css';

interface Candidate {
  version: string;
  chosen: boolean;
  checks: RuleCheck[];
}

/** The verdict of a candidate by the first rule it fails. */
const FAILED_VERDICT: Record<string, { label: string; tone: string }> = {
  blocked: { label: 'blocked', tone: 'bad' },
  bound: { label: 'above target or cap', tone: 'info' },
  sector: { label: 'sector behind', tone: 'warn' },
  soak: { label: 'not soaked', tone: 'warn' },
};

function verdict(c: Candidate): { label: string; tone: string } {
  if (c.chosen) return { label: 'chosen', tone: 'ok' };
  if (c.checks.length === 0) return { label: 'not evaluated', tone: '' };
  const failed = c.checks.filter((k) => !k.pass);
  if (failed.length === 0) return { label: 'eligible', tone: 'accent' };
  const first = failed[0]!.rule;
  return FAILED_VERDICT[first] ?? { label: first, tone: 'warn' };
}

const checkOf = (c: Candidate, rule: RuleCheck['rule']) => c.checks.find((k) => k.rule === rule);
const blockingPattern = (c: Candidate) => {
  const pattern = checkOf(c, 'blocked')?.details?.pattern;
  return typeof pattern === 'string' ? pattern : null;
};
const passText = (check: RuleCheck | undefined) => (check ? (check.pass ? 'pass' : 'fail') : null);

function soakNumbers(k: RuleCheck) {
  return {
    workload: String(k.details?.workload),
    soaked: typeof k.details?.soaked === 'number' ? k.details.soaked : 0,
    required: typeof k.details?.required === 'number' ? k.details.required : null,
  };
}

function columns(reasonOf: (pattern: string) => string | undefined): Column<Candidate>[] {
  return [
    { id: 'version', header: 'Version', required: true, className: 'mono nowrap', value: (c) => c.version, cell: (c) => c.version },
    {
      id: 'verdict',
      header: 'Verdict',
      value: (c) => verdict(c).label,
      cell: (c) => {
        const v = verdict(c);
        return <span className={`badge ${v.tone}`}>{v.label}</span>;
      },
    },
    {
      id: 'blocked',
      header: 'Blocked',
      value: (c) => passText(checkOf(c, 'blocked')),
      csv: (c) => [passText(checkOf(c, 'blocked')), blockingPattern(c)].filter(Boolean).join(' by '),
      cell: (c) => {
        const blocked = checkOf(c, 'blocked');
        if (!blocked) return <span className="muted">—</span>;
        const pattern = blockingPattern(c);
        return (
          <>
            <PassMark pass={blocked.pass} />
            {pattern && (
              <div className="small">
                by <code>{pattern}</code>
                {reasonOf(pattern) && <div className="muted">{reasonOf(pattern)}</div>}
              </div>
            )}
          </>
        );
      },
    },
    {
      id: 'sector',
      header: 'Sector',
      className: 'candidate-sector',
      value: (c) => passText(checkOf(c, 'sector')),
      csv: (c) => checkOf(c, 'sector')?.message,
      cell: (c) => {
        const sector = checkOf(c, 'sector');
        if (!sector) return <span className="muted">—</span>;
        return (
          <>
            <PassMark pass={sector.pass} />
            <div className="small">{sector.message}</div>
          </>
        );
      },
    },
    {
      id: 'soak',
      header: 'Soak per workload',
      csv: (c) =>
        c.checks
          .filter((k) => k.rule === 'soak')
          .map(soakNumbers)
          .map((s) => `${s.workload}: ${s.soaked.toFixed(2)} of ${s.required ?? '—'} days`)
          .join('; '),
      cell: (c) => {
        const soak = c.checks.filter((k) => k.rule === 'soak');
        if (soak.length === 0) return <span className="muted small">no workloads</span>;
        return soak.map((k) => {
          const { workload, soaked, required } = soakNumbers(k);
          return (
            <div key={workload} className="small nowrap" style={{ display: 'flex', gap: 6, alignItems: 'center' }}>
              <span style={{ color: k.pass ? 'var(--ok)' : 'var(--bad)', fontWeight: 600 }} aria-label={k.pass ? 'passed' : 'failed'}>
                {k.pass ? '✓' : '✗'}
              </span>
              <span>{workload}:</span>
              <SoakBar soaked={soaked} required={required} />
              <span>
                {soaked.toFixed(2)} of {required ?? '—'} days
              </span>
            </div>
          );
        });
      },
    },
  ];
}

export function CandidateTable({ candidates, ignored }: { candidates: Candidate[]; ignored: string[] }) {
  const trpc = useTRPC();
  // Reasons live with the organization's block list; the engine only names the regex.
  const versions = useQuery(trpc.versions.history.queryOptions());
  const reasonOf = (pattern: string) => versions.data?.blocked.find((b) => b.pattern === pattern)?.reason;
  return (
    <>
      <DataTable
        id="cluster-candidates"
        label="Candidate versions"
        noun="versions"
        className="candidate-table"
        rows={candidates}
        columns={columns(reasonOf)}
        rowKey={(c) => c.version}
        rowProps={(c) => ({ 'data-version': c.version })}
      />
      {ignored.length > 0 && (
        <p className="small muted" style={{ padding: '0 12px' }}>
          Ignored (not newer than the current version): {ignored.join(', ')}
        </p>
      )}
    </>
  );
}

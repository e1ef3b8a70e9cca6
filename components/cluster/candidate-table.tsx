'use client';
// Every candidate version against every version rule: blocked (which regex, why), sector (which
// cluster of which sector runs what) and soak per workload ("2.35 of 4 days").
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc/client';
import { PassMark, SoakBar, type RuleCheck } from './rule-check';

interface Candidate {
  version: string;
  chosen: boolean;
  checks: RuleCheck[];
}

function verdict(c: Candidate): { label: string; tone: string } {
  if (c.chosen) return { label: 'chosen', tone: 'ok' };
  if (c.checks.length === 0) return { label: 'not evaluated', tone: '' };
  const failed = c.checks.filter((k) => !k.pass);
  if (failed.length === 0) return { label: 'eligible', tone: 'accent' };
  const first = failed[0]!.rule;
  return {
    label: first === 'blocked' ? 'blocked' : first === 'sector' ? 'sector behind' : 'not soaked',
    tone: first === 'blocked' ? 'bad' : 'warn',
  };
}

export function CandidateTable({ candidates, ignored }: { candidates: Candidate[]; ignored: string[] }) {
  const trpc = useTRPC();
  // Reasons live with the organization's block list; the engine only names the regex.
  const versions = useQuery(trpc.versions.history.queryOptions());
  const reasonOf = (pattern: string) => versions.data?.blocked.find((b) => b.pattern === pattern)?.reason;
  return (
    <div className="table-scroll" style={{ maxHeight: 520 }}>
      <table className="data" aria-label="Candidate versions">
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Verdict</th>
            <th scope="col">Blocked</th>
            <th scope="col">Sector</th>
            <th scope="col">Soak per workload</th>
          </tr>
        </thead>
        <tbody>
          {candidates.map((c) => {
            const v = verdict(c);
            const blocked = c.checks.find((k) => k.rule === 'blocked');
            const sector = c.checks.find((k) => k.rule === 'sector');
            const soak = c.checks.filter((k) => k.rule === 'soak');
            const pattern = typeof blocked?.details?.pattern === 'string' ? blocked.details.pattern : null;
            return (
              <tr key={c.version} data-version={c.version}>
                <td className="mono nowrap">{c.version}</td>
                <td>
                  <span className={`badge ${v.tone}`}>{v.label}</span>
                </td>
                <td>
                  {blocked ? (
                    <>
                      <PassMark pass={blocked.pass} />
                      {pattern && (
                        <div className="small">
                          by <code>{pattern}</code>
                          {reasonOf(pattern) && <div className="muted">{reasonOf(pattern)}</div>}
                        </div>
                      )}
                    </>
                  ) : (
                    <span className="muted">—</span>
                  )}
                </td>
                <td style={{ maxWidth: 340 }}>
                  {sector ? (
                    <>
                      <PassMark pass={sector.pass} />
                      <div className="small">{sector.message}</div>
                    </>
                  ) : (
                    <span className="muted">—</span>
                  )}
                </td>
                <td>
                  {soak.length === 0 ? (
                    <span className="muted small">no workloads</span>
                  ) : (
                    soak.map((k) => {
                      const soaked = typeof k.details?.soaked === 'number' ? k.details.soaked : 0;
                      const required = typeof k.details?.required === 'number' ? k.details.required : null;
                      return (
                        <div
                          key={String(k.details?.workload)}
                          className="small nowrap"
                          style={{ display: 'flex', gap: 6, alignItems: 'center' }}
                        >
                          <span
                            style={{ color: k.pass ? 'var(--ok)' : 'var(--bad)', fontWeight: 600 }}
                            aria-label={k.pass ? 'passed' : 'failed'}
                          >
                            {k.pass ? '✓' : '✗'}
                          </span>
                          <span>{String(k.details?.workload)}:</span>
                          <SoakBar soaked={soaked} required={required} />
                          <span>
                            {soaked.toFixed(2)} of {required ?? '—'} days
                          </span>
                        </div>
                      );
                    })
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {ignored.length > 0 && (
        <p className="small muted" style={{ padding: '0 12px' }}>
          Ignored (not newer than the current version): {ignored.join(', ')}
        </p>
      )}
    </div>
  );
}

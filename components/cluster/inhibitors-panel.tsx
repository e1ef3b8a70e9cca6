'use client';
// What the cluster reported about its operators and the APIs later releases remove (Kubernetes
// provider: OLM ClusterServiceVersions and APIRequestCount). An operator's maxOpenShiftVersion
// holds minor upgrades beyond it (OPERATOR_INCOMPATIBLE); an API the target removes that was
// called in the last 24 hours holds that target (REMOVED_API_IN_USE). The rule is the server's;
// this only lists the facts it reads.
import type {
  ClusterInhibitorFacts,
  InstalledOperator as Operator,
  RemovedApiUse as RemovedApi,
} from '@/server/domain/lifecycle/inhibitors';
import { DataTable, type Column } from '@/components/ui/data-table';

const operatorColumns: Column<Operator>[] = [
  { id: 'name', header: 'Operator (CSV)', value: (o) => o.name, cell: (o) => <span className="mono">{o.name}</span> },
  { id: 'namespace', header: 'Namespace', value: (o) => o.namespace, cell: (o) => o.namespace },
  {
    id: 'max',
    header: 'Supports OpenShift up to',
    headerTitle: 'olm.maxOpenShiftVersion: a minor upgrade beyond it is held (OPERATOR_INCOMPATIBLE)',
    value: (o) => o.maxOpenShiftVersion ?? '',
    cell: (o) => (o.maxOpenShiftVersion ? <span className="mono">{o.maxOpenShiftVersion}</span> : <span className="muted">no limit</span>),
  },
];

const apiColumns: Column<RemovedApi>[] = [
  { id: 'resource', header: 'API', value: (a) => a.resource, cell: (a) => <span className="mono">{a.resource}</span> },
  {
    id: 'removed',
    header: 'Removed in Kubernetes',
    headerTitle: 'APIRequestCount status.removedInRelease; OpenShift 4.Y ships Kubernetes 1.(Y+13)',
    value: (a) => a.removedInRelease,
    cell: (a) => <span className="mono">{a.removedInRelease}</span>,
  },
  { id: 'users', header: 'Called by', value: (a) => a.users.join(' '), cell: (a) => (a.users.length ? a.users.join(', ') : '—') },
];

export function InhibitorsPanel({ facts }: { facts: ClusterInhibitorFacts | null }) {
  if (!facts) return null;
  // operators with a limit first: they are the ones that can hold an upgrade
  const operators = [...facts.operators].sort(
    (a, b) => Number(b.maxOpenShiftVersion !== null) - Number(a.maxOpenShiftVersion !== null) || a.name.localeCompare(b.name),
  );
  const inUse = facts.removedApis;
  return (
    <section className="panel" aria-labelledby="inhibitors-h">
      <h2 id="inhibitors-h">Operators and removed APIs</h2>
      <p className="small muted">
        A minor upgrade beyond an operator&apos;s limit waits (OPERATOR_INCOMPATIBLE), as does a release that removes an API something still
        calls (REMOVED_API_IN_USE).
      </p>
      {operators.length === 0 ? (
        <p className="small">No operators installed through OLM.</p>
      ) : (
        <DataTable
          id="cluster-operators"
          label="Installed operators"
          bare
          rows={operators}
          columns={operatorColumns}
          rowKey={(o) => `${o.namespace}/${o.name}`}
        />
      )}
      {inUse.length === 0 ? (
        <p className="small">No API that a later release removes was called in the last 24 hours.</p>
      ) : (
        <DataTable
          id="cluster-removed-apis"
          label="Removed APIs in use"
          bare
          rows={inUse}
          columns={apiColumns}
          rowKey={(a) => a.resource}
        />
      )}
    </section>
  );
}

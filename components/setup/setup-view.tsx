'use client';
// The Set-up page: bringing a real fleet in, step by step — name the organization, check that the
// provider answers (a read, nothing is written to it), import the organization's policies
// (checked first, then applied) — and where the installation stands.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { OrgLink } from '@/components/shell/org-link';
import { withOrganization } from '@/components/shell/organization-link';
import { useState, type ChangeEvent, type FormEvent, type ReactNode } from 'react';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';
import { useTRPC } from '@/components/trpc/client';
import { problemsOf } from '@/components/scheduler/field-problems';
import { FormError } from '@/components/scheduler/form-field';
import { ErrorState, LoadingRows } from '@/components/ui/states';
import { ZonedTime } from '@/components/ui/zoned-time-view';
import styles from './setup.module.css';

type Status = inferRouterOutputs<AppRouter>['setup']['status'];
type ImportResult = inferRouterOutputs<AppRouter>['policies']['importOrganization'];

/** The most a pasted or chosen organization file may be (the server refuses more). */
const MAX_FILE_BYTES = 5_000_000;

export function SetupView() {
  const trpc = useTRPC();
  // no polling of its own: a finished scheduler tick refetches it (LiveUpdates), and so do this page's own changes
  const status = useQuery(trpc.setup.status.queryOptions());
  const me = useQuery(trpc.auth.me.queryOptions());
  if (status.isPending || me.isPending) return <LoadingRows rows={6} />;
  if (status.isError) return <ErrorState error={status.error} onRetry={() => void status.refetch()} />;
  const s = status.data;
  const role = me.data?.role ?? 'viewer';
  return (
    <>
      {s.demo && (
        <div className="banner info small" role="status">
          This database holds the simulated demo fleet. To bring your own fleet in, start fleetplan with your provider&apos;s settings (see
          the README, &quot;Connect your fleet&quot;) and remove the demo with <code>npx --no fleetplan demo remove --yes</code>.
        </div>
      )}
      {s.complete && (
        <div className="banner info small" role="status" data-testid="setup-complete">
          Set-up is complete: {s.managed} of {s.clusters} clusters have an upgrade policy. The scheduler plans them at every tick —{' '}
          <OrgLink href="/fleet">see the fleet</OrgLink> or <OrgLink href="/scheduler">the scheduler</OrgLink>.
        </div>
      )}
      <ol className={styles.steps}>
        <OrganizationStep status={s} canEdit={role === 'admin'} />
        <ProviderStep status={s} canTest={role === 'admin'} />
        <PoliciesStep status={s} canImport={role !== 'viewer'} />
      </ol>
      {role === 'admin' && s.organization?.named && <NewOrganization />}
    </>
  );
}

/**
 * An admin adds an organization beside this one; the page then shows the new organization's
 * set-up (`?org=NAME`): its provider test and its policy import.
 */
function NewOrganization() {
  const trpc = useTRPC();
  const [name, setName] = useState('');
  const create = useMutation(
    trpc.organizations.create.mutationOptions({
      onSuccess: (r) => window.location.assign(withOrganization('/setup', r.name)),
    }),
  );
  return (
    <section className={`panel ${styles.step}`} aria-labelledby="setup-new-organization">
      <h2 id="setup-new-organization" className={styles.stepTitle}>
        Another organization
      </h2>
      <p className="small muted">
        Each organization has its own policies, sectors, blocked versions and webhooks; the top bar switches between them. After creating
        it, this page walks through its set-up.
      </p>
      <OrganizationNameForm
        label="New organization"
        placeholder="e.g. payments"
        action="Create organization"
        name={name}
        setName={setName}
        mutation={create}
        onSubmit={() => create.mutate({ name: name.trim() })}
      />
    </section>
  );
}

/**
 * An organization's name, as the server takes it (the pattern only spares a round trip; the server
 * checks again), with the server's problems under it: naming this organization, or adding another.
 */
function OrganizationNameForm({
  label,
  placeholder,
  action,
  primary,
  name,
  setName,
  mutation,
  onSubmit,
}: {
  label: string;
  placeholder: string;
  action: string;
  primary?: boolean;
  name: string;
  setName: (name: string) => void;
  mutation: { isPending: boolean; error: { message: string; data?: unknown } | null };
  onSubmit: () => void;
}) {
  const { byField, general } = problemsOf(mutation.error);
  function submit(e: FormEvent) {
    e.preventDefault();
    onSubmit();
  }
  return (
    <>
      <form className={styles.row} onSubmit={submit} aria-label={label}>
        <label>
          Name
          <input
            type="text"
            required
            maxLength={100}
            pattern="[A-Za-z0-9][A-Za-z0-9._\-]*"
            placeholder={placeholder}
            value={name}
            onChange={(e) => setName(e.target.value)}
            aria-invalid={byField.name ? true : undefined}
          />
        </label>
        <button type="submit" className={primary ? 'btn primary' : 'btn'} disabled={mutation.isPending || !name.trim()}>
          {action}
        </button>
      </form>
      <FormError message={[general, ...(byField.name ?? [])].filter(Boolean).join('; ')} />
    </>
  );
}

function Step({ n, title, done, children }: { n: number; title: string; done: boolean; children: ReactNode }) {
  return (
    <li className={`panel ${styles.step}`} aria-labelledby={`setup-step-${n}`} data-done={done ? 'true' : 'false'}>
      <h2 id={`setup-step-${n}`} className={styles.stepTitle}>
        <span className={styles.stepNumber} aria-hidden="true">
          {done ? '✓' : n}
        </span>
        {title}
        {done && <span className="badge ok">done</span>}
      </h2>
      {children}
    </li>
  );
}

function OrganizationStep({ status, canEdit }: { status: Status; canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const save = useMutation(
    trpc.setup.nameOrganization.mutationOptions({
      onSuccess: () => {
        setName('');
        void queryClient.invalidateQueries();
      },
    }),
  );
  const named = status.organization?.named ?? false;
  return (
    <Step n={1} title="Name the organization" done={named}>
      <p className="small muted">
        The organization holds the fleet&apos;s policies, sectors and blocked versions. Importing an OCM organization file (step 3) also
        names it.
      </p>
      {named ? (
        <p>
          Organization <strong data-testid="setup-org-name">{status.organization!.name}</strong>.
        </p>
      ) : canEdit ? (
        <OrganizationNameForm
          label="Name the organization"
          placeholder="e.g. app-sre"
          action="Save name"
          primary
          name={name}
          setName={setName}
          mutation={save}
          onSubmit={() => save.mutate({ name })}
        />
      ) : (
        <p className="small muted">An admin names the organization.</p>
      )}
    </Step>
  );
}

function ProviderStep({ status, canTest }: { status: Status; canTest: boolean }) {
  const trpc = useTRPC();
  const test = useMutation(trpc.setup.testConnection.mutationOptions());
  const p = status.provider;
  const result = test.data;
  return (
    <Step n={2} title="Connect the provider" done={status.clusters > 0}>
      <dl className={`props ${styles.facts}`}>
        <dt>Provider</dt>
        <dd data-testid="setup-provider">{p.name}</dd>
        {p.target && (
          <>
            <dt>{p.name === 'ocm' ? 'API' : 'Kubeconfig'}</dt>
            <dd className="mono">{p.target}</dd>
          </>
        )}
        <dt>Credentials</dt>
        <dd>{p.credentials}</dd>
        <dt>Last read by the scheduler</dt>
        <dd>
          {status.observedAt ? (
            <>
              <ZonedTime iso={status.observedAt} /> — {status.clusters} clusters known
            </>
          ) : (
            'not yet'
          )}
        </dd>
      </dl>
      <p className="small muted">
        The provider and its credentials come from the server&apos;s settings (<code>FLEETPLAN_PROVIDER</code> and the provider&apos;s
        variables, see the README). Testing lists the fleet once; it writes nothing.
      </p>
      {canTest ? (
        <div className={styles.row}>
          <button type="button" className="btn" onClick={() => test.mutate()} disabled={test.isPending}>
            {test.isPending ? 'Testing…' : 'Test connection'}
          </button>
        </div>
      ) : (
        <p className="small muted">An admin can test the connection.</p>
      )}
      <FormError message={test.error?.message} />
      {result && result.ok && (
        <div className="banner info small" role="status" data-testid="connection-result">
          Connected in {result.elapsedMs} ms: the provider lists {result.clusters} clusters
          {result.sample.length > 0 && (
            <>
              {' '}
              ({result.sample.join(', ')}
              {result.clusters > result.sample.length ? ', …' : ''})
            </>
          )}
          .
          {result.unreadable.length > 0 && (
            <>
              {' '}
              {result.unreadable.length} could not be read: {result.unreadable.map((u) => `${u.name} (${u.message})`).join('; ')}.
            </>
          )}
        </div>
      )}
      {result && !result.ok && (
        <div className="banner bad small" role="alert" data-testid="connection-result">
          Could not list the fleet{result.status ? ` (HTTP ${result.status})` : ''}: {result.message}
        </div>
      )}
    </Step>
  );
}

function PoliciesStep({ status, canImport }: { status: Status; canImport: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [yaml, setYaml] = useState('');
  const [fileError, setFileError] = useState<string | null>(null);
  const [checked, setChecked] = useState<{ yaml: string; result: ImportResult } | null>(null);
  const check = useMutation(
    trpc.policies.importOrganization.mutationOptions({ onSuccess: (result, vars) => setChecked({ yaml: vars.yaml, result }) }),
  );
  const apply = useMutation(
    trpc.policies.importOrganization.mutationOptions({
      onSuccess: () => {
        setChecked(null);
        setYaml('');
        void queryClient.invalidateQueries();
      },
    }),
  );
  const error = check.error ?? apply.error;
  const { byField, general } = problemsOf(error);
  const problems = Object.entries(byField).flatMap(([path, messages]) => messages.map((m) => ({ path, message: m })));

  async function choose(e: ChangeEvent<HTMLInputElement>) {
    const file = e.target.files?.[0];
    setFileError(null);
    if (!file) return;
    if (file.size > MAX_FILE_BYTES) {
      setFileError(
        `${file.name} is ${file.size.toLocaleString()} bytes; an organization file may be at most ${MAX_FILE_BYTES.toLocaleString()}`,
      );
      return;
    }
    setYaml(await file.text());
    setChecked(null);
  }

  return (
    <Step n={3} title="Import the policies" done={status.managed > 0}>
      <p className="small muted">
        An OCM organization file (<code>/ocm/&lt;org&gt;.yml</code> with <code>upgradePolicyClusters</code>, sectors and blocked versions),
        as the upgrade service reads it. The clusters it names must be among those the provider lists. It is checked first; nothing is
        stored until you import.
      </p>
      {status.clusters === 0 && (
        <div className="banner warn small">No cluster is known yet: the scheduler stores what the provider lists at its next tick.</div>
      )}
      {canImport ? (
        <>
          <div className={styles.row}>
            <label>
              Organization file
              <input type="file" accept=".yml,.yaml,text/yaml,application/yaml" onChange={(e) => void choose(e)} />
            </label>
          </div>
          <label className={styles.block}>
            or paste it
            <textarea
              rows={10}
              spellCheck={false}
              value={yaml}
              onChange={(e) => {
                setYaml(e.target.value);
                setChecked(null);
              }}
              aria-label="Organization file (YAML)"
            />
          </label>
          <FormError message={fileError} />
          <div className={styles.row}>
            <button
              type="button"
              className="btn"
              disabled={!yaml.trim() || check.isPending}
              onClick={() => {
                apply.reset();
                check.mutate({ yaml, dryRun: true });
              }}
            >
              Check
            </button>
            <button
              type="button"
              className="btn primary"
              disabled={checked === null || checked.yaml !== yaml || apply.isPending}
              onClick={() => checked && apply.mutate({ yaml, dryRun: false, expectedRevision: checked.result.revision })}
            >
              Import
            </button>
          </div>
        </>
      ) : (
        <p className="small muted">An operator or admin imports the policies.</p>
      )}
      {error && (
        <div className="banner bad small" role="alert" data-testid="import-problems">
          {general ?? 'The organization file is not valid'}
          {problems.length > 0 && (
            <ul className={styles.problems}>
              {problems.slice(0, 50).map((p, i) => (
                <li key={i}>
                  <code>{p.path}</code>: {p.message}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {checked && checked.yaml === yaml && !error && (
        <div className="banner info small" role="status" data-testid="import-check">
          {describeImport(checked.result)} Press Import to store it.
        </div>
      )}
      {apply.isSuccess && (
        <div className="banner info small" role="status" data-testid="import-done">
          Imported. {describeImport(apply.data)}
        </div>
      )}
    </Step>
  );
}

/** What an import does (or did), in a sentence. */
function describeImport(result: ImportResult): string {
  const clusters = `${result.managedClusters} managed, ${result.unmanagedClusters} without a policy`;
  const changed = result.changedClusters.length;
  const what =
    changed === 0 && !result.organizationChanged
      ? 'Nothing changes: the stored policies already say this.'
      : `Organization ${result.organization}${result.organizationChanged ? ' (settings change)' : ''}; ${changed} cluster ${changed === 1 ? 'policy changes' : 'policies change'}.`;
  const notices = result.notices.length ? ` Notes: ${result.notices.map((n) => `${n.path}: ${n.message}`).join('; ')}.` : '';
  return `${what} Clusters: ${clusters}.${notices}`;
}

'use client';
// Edit one cluster's policy as a form and as YAML side by side, validated live by the server's
// validator (debounced), with the diff, the impact on the engine's decisions, conflict
// detection on save (expectedRevision) and the history with one-click revert.
import { OrgLink } from '@/components/shell/org-link';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { diffJson } from '@/lib/json-diff';
import { policySpecFromDocument, policySpecToDocument } from '@/lib/policy-spec';
import type { UpgradePolicySpec } from '@/server/domain/policy-files/types';
import { useTRPC } from '@/components/trpc/client';
import { EmptyState } from '@/components/ui/states';
import { QueryState } from '@/components/ui/query-state';
import { ClusterPolicyForm } from './cluster-policy-form';
import { ForecastImpactPanel } from './forecast-impact-panel';
import { ChangesPanel, ConflictBanner, HistoryPanel, ImpactPanel, ValidationPanel, SaveReasonInput } from './editor-panels';
import { groupPolicyProblems, isObject, NEW_POLICY, type PolicyDoc } from './policy-doc';
import { useDebounced } from '@/components/ui/use-debounced';
import { useDocDraft, useLeaveGuard, useResetOnRevision } from './use-doc-draft';
import { YamlPane } from './yaml-pane';

type Doc = PolicyDoc | null;

function docOf(spec: UpgradePolicySpec | null | undefined): Doc {
  return spec ? (policySpecToDocument(spec) as PolicyDoc) : null;
}

/** The draft as the API's spec (unknown keys kept as `extra`); null = unmanaged. */
function specOf(doc: Doc): UpgradePolicySpec | null {
  return doc === null ? null : policySpecFromDocument(doc);
}

export function ClusterPolicyEditor({ name }: { name: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const stored = useQuery(trpc.policies.clusterPolicy.queryOptions({ name }));
  const org = useQuery(trpc.policies.organization.queryOptions());
  const base = useMemo(() => (stored.data ? docOf(stored.data.policy) : undefined), [stored.data]);
  const draft = useDocDraft<Doc>(null, { fromYaml: (v) => (v === null ? null : (v as PolicyDoc)) });
  useLeaveGuard(draft.dirty);
  // the revision the draft is based on (moves on save, revert, reload or rebase)
  const [baseRevision, setBaseRevision] = useState<number | undefined>(undefined);
  const [baseDoc, setBaseDoc] = useState<Doc>(null);
  const [conflict, setConflict] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [reason, setReason] = useState('');

  useResetOnRevision(
    {
      ...draft,
      reset: (d: Doc) => {
        draft.reset(d);
        setBaseDoc(d);
        setBaseRevision(stored.data?.revision);
      },
    },
    base,
    stored.data?.revision,
  );

  const spec = useMemo(() => specOf(draft.draft), [draft.draft]);
  const validInput = useDebounced({ clusters: [{ name, policy: spec }] }, 300);
  const canCheck = stored.isSuccess && !draft.yamlError && (draft.draft === null || isObject(draft.draft));
  const validation = useQuery({
    ...trpc.policies.validateDraft.queryOptions(validInput),
    enabled: canCheck && draft.dirty,
    placeholderData: keepPreviousData,
  });
  const problems = draft.dirty && validation.data ? validation.data.problems : [];
  const warnings = draft.dirty ? (validation.data?.warnings ?? []) : [];
  const byField = groupPolicyProblems(problems, (p) =>
    p.cluster === name || p.path.startsWith('clusters[0].policy') ? p.field : undefined,
  );
  const changes = useMemo(() => diffJson(baseDoc, draft.draft), [baseDoc, draft.draft]);
  const valid = draft.dirty && validation.data?.ok === true && !validation.isFetching && !draft.yamlError;
  const impact = useQuery({ ...trpc.policies.previewImpact.queryOptions(validInput), enabled: valid && changes.length > 0 });
  const forecastImpact = useQuery({
    ...trpc.policies.previewForecastImpact.queryOptions(validInput),
    enabled: valid && changes.length > 0,
  });

  const save = useMutation(
    trpc.policies.updateClusterPolicy.mutationOptions({
      onSuccess: async (result) => {
        setConflict(null);
        setReason('');
        setSaved(result.changed ? `Saved as revision ${result.revision}.` : 'Nothing to save: the policy is unchanged.');
        await queryClient.invalidateQueries({ queryKey: trpc.policies.pathKey() });
        await queryClient.invalidateQueries({ queryKey: trpc.clusters.pathKey() });
      },
      onError: (err) => {
        if (err.data?.code === 'CONFLICT') setConflict(err.message);
      },
    }),
  );

  const reloadTheirs = async () => {
    const fresh = await stored.refetch();
    if (fresh.data) {
      draft.reset(docOf(fresh.data.policy));
      setBaseDoc(docOf(fresh.data.policy));
      setBaseRevision(fresh.data.revision);
    }
    setConflict(null);
  };
  const rebaseMine = async () => {
    const fresh = await stored.refetch();
    if (fresh.data) {
      // keep the draft; diff and save now go against their latest revision
      setBaseDoc(docOf(fresh.data.policy));
      setBaseRevision(fresh.data.revision);
    }
    setConflict(null);
  };
  const saveProblems =
    save.error?.data?.code === 'BAD_REQUEST'
      ? ((save.error.data as { problems?: { path: string; message: string }[] | null }).problems ?? [])
      : [];

  return (
    <QueryState
      query={stored}
      loadingRows={8}
      frame={(state) => <div className="panel">{state}</div>}
      notFound={
        <EmptyState title={`No cluster named ${name}`}>
          <OrgLink href="/policies">Back to policies</OrgLink>
        </EmptyState>
      }
    >
      {(current) => (
        <>
          {conflict && <ConflictBanner message={conflict} onReload={reloadTheirs} onRebase={rebaseMine} />}
          {saved && !draft.dirty && (
            <div className="banner info" role="status">
              {saved}
            </div>
          )}
          {save.isError && save.error.data?.code !== 'CONFLICT' && (
            <div className="banner bad" role="alert">
              Not saved: {save.error.message}
              {saveProblems.length > 0 && (
                <ul className="small" style={{ margin: '4px 0 0' }}>
                  {saveProblems.map((p) => (
                    <li key={p.path + p.message}>
                      <code>{p.path}</code>: {p.message}
                    </li>
                  ))}
                </ul>
              )}
            </div>
          )}
          <div className="toolbar panel" style={{ position: 'sticky', top: 0, zIndex: 2 }}>
            <span>
              <strong>{name}</strong>{' '}
              <span className="muted small">
                runs {current.version} · policy revision {baseRevision ?? current.revision}
              </span>
            </span>
            {draft.dirty ? <span className="badge warn">unsaved changes</span> : <span className="badge">saved</span>}
            <span style={{ marginLeft: 'auto', display: 'flex', gap: 8 }}>
              {draft.draft === null ? (
                <button className="btn" onClick={() => draft.setDraft(NEW_POLICY)}>
                  Add a policy
                </button>
              ) : (
                <button className="btn danger" onClick={() => draft.setDraft(null)} title="The engine stops managing this cluster">
                  Remove policy
                </button>
              )}
              <SaveReasonInput value={reason} onChange={setReason} />
              <button className="btn" disabled={!draft.dirty} onClick={() => draft.reset(baseDoc)}>
                Discard
              </button>
              <button
                className="btn primary"
                disabled={!valid || changes.length === 0 || save.isPending || baseRevision === undefined}
                onClick={() => {
                  setSaved(null);
                  save.mutate({ name, expectedRevision: baseRevision!, policy: spec, reason: reason.trim() || undefined });
                }}
              >
                {save.isPending ? 'Saving…' : 'Save'}
              </button>
            </span>
          </div>
          <div className="grid-2">
            <section className="panel" aria-label="Policy form">
              <h2>Form</h2>
              {draft.draft === null ? (
                <EmptyState title="This cluster has no upgrade policy">The engine does not manage it. Add a policy to start.</EmptyState>
              ) : !isObject(draft.draft) ? (
                <EmptyState title="The YAML is not a mapping">Fix it on the right to use the form.</EmptyState>
              ) : (
                <ClusterPolicyForm
                  doc={draft.draft}
                  onChange={(d) => draft.setDraft(d)}
                  problems={byField}
                  sectors={org.data?.sectors.map((s) => s.name) ?? []}
                  workloads={org.data?.upgradePolicyAllowedWorkloads ?? org.data?.workloadsInUse ?? []}
                  mutexes={org.data?.upgradePolicyAllowedMutexes ?? org.data?.mutexesInUse ?? []}
                />
              )}
              {byField.other && byField.other.length > 0 && (
                <ul className="small" style={{ color: 'var(--bad)', paddingLeft: 18 }}>
                  {byField.other.map((p) => (
                    <li key={p.path + p.message}>
                      <code>{p.field ?? p.path}</code>: {p.message}
                    </li>
                  ))}
                </ul>
              )}
            </section>
            <section className="panel" aria-label="Policy YAML">
              <YamlPane label="upgradePolicy (YAML)" yaml={draft.yaml} error={draft.yamlError} onChange={draft.setYaml} />
            </section>
          </div>
          <div className="grid-2">
            <ValidationPanel
              pending={draft.dirty && (validation.isFetching || validation.isPending)}
              problems={problems}
              warnings={warnings}
              yamlError={draft.yamlError}
            />
            <ChangesPanel changes={changes} />
          </div>
          <ForecastImpactPanel impact={valid && changes.length > 0 ? forecastImpact : null} />
          <ImpactPanel impact={valid && changes.length > 0 ? impact : null} />
          <HistoryPanel
            scope="cluster"
            subject={name}
            currentRevision={current.revision}
            onReverted={() => {
              setSaved('Reverted.');
            }}
          />
        </>
      )}
    </QueryState>
  );
}

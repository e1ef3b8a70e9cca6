'use client';
// Edit the organization: sectors (dependencies, maxParallelUpgrades), blocked versions with
// reasons, allow-lists, as a form and as YAML side by side; freeze with a reason. Same live
// validation, diff, impact preview, conflict handling and history as a cluster policy.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import type { inferRouterInputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';
import { diffJson } from '@/lib/json-diff';
import { useTRPC } from '@/components/trpc/client';
import { QueryState } from '@/components/ui/query-state';
import { ForecastImpactPanel } from './forecast-impact-panel';
import { ChangesPanel, ConflictBanner, HistoryPanel, ImpactPanel, ValidationPanel, SaveReasonInput } from './editor-panels';
import { Field, FieldErrors, invalidStyle, ListInput, VersionBoundField, type FieldProblem } from './fields';
import { isObject, scalarText, strings } from './policy-doc';
import { useDebounced } from '@/components/ui/use-debounced';
import { useDocDraft, useLeaveGuard, useResetOnRevision } from './use-doc-draft';
import { YamlPane } from './yaml-pane';
import { SelectorPreview } from '@/components/ui/selector-preview';

type Settings = inferRouterInputs<AppRouter>['policies']['updateOrganization']['organization'];
/** a sector's approval gates as the API takes them */
type ApprovalGates = NonNullable<Settings['sectors'][number]['approval']>;
/** a sector's canaries as the API takes them ({count | percent, soakHours, selector}) */
type Canary = NonNullable<Settings['sectors'][number]['canary']>;

/** A YAML or stored `canary` in the API's shape: numbers kept, anything else dropped (the validator then names what is missing). */
function canaryOf(v: unknown): Canary | null {
  if (!isObject(v)) return null;
  const out: Canary = {};
  for (const key of ['count', 'percent', 'soakHours'] as const) {
    const n = v[key];
    if (typeof n === 'number' && Number.isFinite(n)) out[key] = n;
  }
  if (typeof v.selector === 'string') out.selector = v.selector;
  return out;
}

const EMPTY: Settings = {
  sectors: [],
  blockedVersions: [],
  upgradePolicyAllowedWorkloads: null,
  upgradePolicyAllowedMutexes: null,
  targetVersion: null,
  maxVersion: null,
};

/** A YAML scalar as the API's optional text (absent or null: unset). */
const optionalScalar = (v: unknown): string | null => (v === undefined || v === null ? null : scalarText(v));

/** Whatever the YAML holds, in the API's shape (wrong types become empty; the validator speaks). */
function settingsFromYaml(v: unknown): Settings {
  const o = isObject(v) ? v : {};
  return {
    sectors: (Array.isArray(o.sectors) ? o.sectors : []).map((s) => {
      const x = isObject(s) ? s : {};
      const mpu = x.maxParallelUpgrades;
      return {
        name: scalarText(x.name),
        maxParallelUpgrades: mpu === undefined || mpu === null ? null : scalarText(mpu),
        maxConcurrentUpgrades: optionalScalar(x.maxConcurrentUpgrades),
        targetVersion: optionalScalar(x.targetVersion),
        maxVersion: optionalScalar(x.maxVersion),
        // as written: the validator names a wrong key or value at its path
        approval: isObject(x.approval) ? x.approval : null,
        notBefore: optionalScalar(x.notBefore),
        canary: canaryOf(x.canary),
        selector: optionalScalar(x.selector),
        dependencies: strings(x.dependencies),
      };
    }),
    blockedVersions: (Array.isArray(o.blockedVersions) ? o.blockedVersions : []).map((b) =>
      isObject(b) ? { pattern: scalarText(b.pattern), reason: scalarText(b.reason) } : { pattern: scalarText(b), reason: '' },
    ),
    upgradePolicyAllowedWorkloads: Array.isArray(o.upgradePolicyAllowedWorkloads) ? strings(o.upgradePolicyAllowedWorkloads) : null,
    upgradePolicyAllowedMutexes: Array.isArray(o.upgradePolicyAllowedMutexes) ? strings(o.upgradePolicyAllowedMutexes) : null,
    targetVersion: optionalScalar(o.targetVersion),
    maxVersion: optionalScalar(o.maxVersion),
  };
}

/** The YAML leaves out what is unset (no limit, no allow-list) instead of writing nulls. */
function yamlDocOf(s: Settings): unknown {
  return {
    sectors: s.sectors.map((x) => ({
      name: x.name,
      ...(x.maxParallelUpgrades ? { maxParallelUpgrades: x.maxParallelUpgrades } : {}),
      ...(x.maxConcurrentUpgrades ? { maxConcurrentUpgrades: x.maxConcurrentUpgrades } : {}),
      ...(x.targetVersion ? { targetVersion: x.targetVersion } : {}),
      ...(x.maxVersion ? { maxVersion: x.maxVersion } : {}),
      ...(x.approval && (x.approval.before || x.approval.after) ? { approval: x.approval } : {}),
      ...(x.notBefore ? { notBefore: x.notBefore } : {}),
      ...(x.canary ? { canary: x.canary } : {}),
      ...(x.selector ? { selector: x.selector } : {}),
      dependencies: x.dependencies,
    })),
    blockedVersions: s.blockedVersions,
    ...(s.upgradePolicyAllowedWorkloads ? { upgradePolicyAllowedWorkloads: s.upgradePolicyAllowedWorkloads } : {}),
    ...(s.upgradePolicyAllowedMutexes ? { upgradePolicyAllowedMutexes: s.upgradePolicyAllowedMutexes } : {}),
    ...(s.targetVersion ? { targetVersion: s.targetVersion } : {}),
    ...(s.maxVersion ? { maxVersion: s.maxVersion } : {}),
  };
}

/** Problems at `organization.sectors[2].dependencies[0]` etc., keyed by the form row they belong to. */
function problemsAt(problems: readonly FieldProblem[], prefix: string): FieldProblem[] {
  return problems.filter((p) => {
    const path = p.path.replace(/^organization\./, '');
    return path === prefix || path.startsWith(`${prefix}.`) || path.startsWith(`${prefix}[`);
  });
}

export function OrganizationEditor() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const stored = useQuery(trpc.policies.organization.queryOptions());
  const base = useMemo<Settings | undefined>(
    () =>
      stored.data && {
        sectors: stored.data.sectors.map((s) => ({
          name: s.name,
          maxParallelUpgrades: s.maxParallelUpgrades,
          maxConcurrentUpgrades: s.maxConcurrentUpgrades,
          targetVersion: s.targetVersion,
          maxVersion: s.maxVersion,
          approval: (s.approval as ApprovalGates | null) ?? null,
          notBefore: s.notBefore ?? null,
          canary: canaryOf(s.canary),
          selector: s.selector ?? null,
          dependencies: s.dependencies,
        })),
        blockedVersions: stored.data.blockedVersions.map((b) => ({ pattern: b.pattern, reason: b.reason })),
        upgradePolicyAllowedWorkloads: stored.data.upgradePolicyAllowedWorkloads,
        upgradePolicyAllowedMutexes: stored.data.upgradePolicyAllowedMutexes,
        targetVersion: stored.data.targetVersion,
        maxVersion: stored.data.maxVersion,
      },
    [stored.data],
  );
  const draft = useDocDraft<Settings>(EMPTY, { fromYaml: settingsFromYaml, toYamlDoc: yamlDocOf });
  useLeaveGuard(draft.dirty);
  const [baseRevision, setBaseRevision] = useState<number | undefined>(undefined);
  const [baseDoc, setBaseDoc] = useState<Settings>(EMPTY);
  const [conflict, setConflict] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [reason, setReason] = useState('');
  useResetOnRevision(
    {
      ...draft,
      reset: (d: Settings) => {
        draft.reset(d);
        setBaseDoc(d);
        setBaseRevision(stored.data?.revision);
      },
    },
    base,
    stored.data?.revision,
  );

  const input = useDebounced({ organization: draft.draft }, 300);
  const validation = useQuery({
    ...trpc.policies.validateDraft.queryOptions(input),
    enabled: stored.isSuccess && draft.dirty && !draft.yamlError,
    placeholderData: keepPreviousData,
  });
  const problems = draft.dirty && validation.data ? validation.data.problems : [];
  const changes = useMemo(() => diffJson(baseDoc, draft.draft), [baseDoc, draft.draft]);
  const valid = draft.dirty && validation.data?.ok === true && !validation.isFetching && !draft.yamlError;
  const impact = useQuery({ ...trpc.policies.previewImpact.queryOptions(input), enabled: valid && changes.length > 0 });
  const forecastImpact = useQuery({ ...trpc.policies.previewForecastImpact.queryOptions(input), enabled: valid && changes.length > 0 });
  const save = useMutation(
    trpc.policies.updateOrganization.mutationOptions({
      onSuccess: async (r) => {
        setConflict(null);
        setReason('');
        setSaved(r.changed ? `Saved as revision ${r.revision}.` : 'Nothing to save.');
        await queryClient.invalidateQueries({ queryKey: trpc.policies.pathKey() });
        await queryClient.invalidateQueries({ queryKey: trpc.versions.pathKey() });
      },
      onError: (err) => err.data?.code === 'CONFLICT' && setConflict(err.message),
    }),
  );

  const d = draft.draft;
  const set = (patch: Partial<Settings>) => draft.setDraft({ ...d, ...patch });
  /** one sector's settings changed, the others as they are */
  const setSector = (i: number, patch: Partial<Settings['sectors'][number]>) =>
    set({ sectors: d.sectors.map((x, j) => (j === i ? { ...x, ...patch } : x)) });
  const sectorNames = d.sectors.map((s) => s.name).filter(Boolean);
  const refetchBase = async (keepDraft: boolean) => {
    const fresh = await stored.refetch();
    if (fresh.data) {
      const b = settingsFromYaml(fresh.data);
      if (!keepDraft) draft.reset(b);
      setBaseDoc(b);
      setBaseRevision(fresh.data.revision);
    }
    setConflict(null);
  };

  return (
    <QueryState query={stored} loadingRows={8} frame={(state) => <div className="panel">{state}</div>}>
      {(current) => (
        <>
          <FreezePanel frozen={current.frozen} reason={current.frozenReason} revision={current.revision} />
          {conflict && <ConflictBanner message={conflict} onReload={() => refetchBase(false)} onRebase={() => refetchBase(true)} />}
          {saved && !draft.dirty && (
            <div className="banner info" role="status">
              {saved}
            </div>
          )}
          {save.isError && save.error.data?.code !== 'CONFLICT' && (
            <div className="banner bad" role="alert">
              Not saved: {save.error.message}
            </div>
          )}
          <div className="toolbar panel" style={{ position: 'sticky', top: 0, zIndex: 2 }}>
            <span>
              <strong>{current.name}</strong>{' '}
              <span className="muted small">
                revision {baseRevision ?? current.revision} · {current.managedClusterCount} of {current.clusterCount} clusters managed
              </span>
            </span>
            {draft.dirty ? <span className="badge warn">unsaved changes</span> : <span className="badge">saved</span>}
            <span style={{ marginLeft: 'auto', display: 'flex', gap: 8 }}>
              <SaveReasonInput value={reason} onChange={setReason} />
              <button className="btn" disabled={!draft.dirty} onClick={() => draft.reset(baseDoc)}>
                Discard
              </button>
              <button
                className="btn primary"
                disabled={!valid || changes.length === 0 || save.isPending || baseRevision === undefined}
                onClick={() => {
                  setSaved(null);
                  save.mutate({ expectedRevision: baseRevision!, organization: d, reason: reason.trim() || undefined });
                }}
              >
                {save.isPending ? 'Saving…' : 'Save'}
              </button>
            </span>
          </div>
          <div className="grid-2">
            <section className="panel" aria-label="Organization form" style={{ display: 'flex', flexDirection: 'column', gap: 14 }}>
              <fieldset style={{ border: 0, padding: 0, margin: 0, minWidth: 0 }}>
                <legend>
                  <h2 style={{ margin: 0 }}>Sectors</h2>
                </legend>
                <p className="small muted" style={{ margin: '2px 0 8px' }}>
                  A version reaches a sector only after every cluster of the sectors it depends on runs it.
                </p>
                {d.sectors.map((s, i) => (
                  <div
                    key={i}
                    style={{
                      display: 'grid',
                      gridTemplateColumns: 'minmax(0,1.3fr) 88px minmax(0,1.3fr) auto',
                      gap: 8,
                      alignItems: 'start',
                      marginBottom: 10,
                      paddingBottom: 10,
                      borderBottom: '1px solid var(--border)',
                    }}
                  >
                    <Field label={`Sector ${i + 1} name`} problems={problemsAt(problems, `sectors[${i}].name`)}>
                      {(a) => (
                        <input
                          type="text"
                          {...a}
                          value={s.name}
                          onChange={(e) => setSector(i, { name: e.target.value })}
                          style={invalidStyle(a['aria-invalid'])}
                        />
                      )}
                    </Field>
                    <Field label="Max parallel" problems={problemsAt(problems, `sectors[${i}].maxParallelUpgrades`)}>
                      {(a) => (
                        <input
                          type="text"
                          {...a}
                          placeholder="N or P%"
                          value={s.maxParallelUpgrades ?? ''}
                          onChange={(e) => setSector(i, { maxParallelUpgrades: e.target.value || null })}
                          style={{ width: '100%', ...invalidStyle(a['aria-invalid']) }}
                        />
                      )}
                    </Field>
                    <Field label="Depends on" problems={[...problemsAt(problems, `sectors[${i}].dependencies`)]}>
                      {(a) => (
                        <ListInput
                          {...a}
                          value={s.dependencies}
                          suggestions={sectorNames.filter((n) => n !== s.name)}
                          onChange={(deps) => setSector(i, { dependencies: deps })}
                        />
                      )}
                    </Field>
                    <button
                      className="btn"
                      style={{ marginTop: 20 }}
                      aria-label={`Remove sector ${s.name || i + 1}`}
                      title="Remove this sector"
                      onClick={() => set({ sectors: d.sectors.filter((_, j) => j !== i) })}
                    >
                      ✕
                    </button>
                    <div style={{ gridColumn: '1 / -1', display: 'grid', gridTemplateColumns: 'repeat(3, minmax(0, 1fr))', gap: 8 }}>
                      {(
                        [
                          ['maxConcurrentUpgrades', 'At once (all clusters)', 'N or P%'],
                          ['targetVersion', 'Target version', '4.16.3 or 4.16.*'],
                          ['maxVersion', 'Cap', '4.16.3 or 4.16.*'],
                        ] as const
                      ).map(([key, label, placeholder]) => (
                        <Field key={key} label={label} problems={problemsAt(problems, `sectors[${i}].${key}`)}>
                          {(a) => (
                            <input
                              type="text"
                              {...a}
                              aria-label={`Sector ${s.name || i + 1} ${label.toLowerCase()}`}
                              placeholder={placeholder}
                              value={s[key] ?? ''}
                              onChange={(e) => setSector(i, { [key]: e.target.value.trim() || null })}
                              style={{ width: '100%', ...invalidStyle(a['aria-invalid']) }}
                            />
                          )}
                        </Field>
                      ))}
                    </div>
                    <div
                      style={{ gridColumn: '1 / -1', display: 'grid', gridTemplateColumns: 'repeat(3, minmax(0, 1fr))', gap: 8 }}
                      data-testid={`sector-gates-${i}`}
                    >
                      {(
                        [
                          ['before', 'Approval before', 'a version waits for an approval before it enters this sector'],
                          ['after', 'Approval after', 'the sectors after this one wait until its completion of a version is approved'],
                        ] as const
                      ).map(([key, label, title]) => (
                        <Field key={key} label={label} problems={problemsAt(problems, `sectors[${i}].approval.${key}`)}>
                          {(a) => (
                            <input
                              type="checkbox"
                              {...a}
                              title={title}
                              aria-label={`Sector ${s.name || i + 1} ${label.toLowerCase()}`}
                              checked={s.approval?.[key] === true}
                              onChange={(e) => {
                                const gates = {
                                  before: s.approval?.before === true,
                                  after: s.approval?.after === true,
                                  [key]: e.target.checked,
                                };
                                const approval = gates.before || gates.after ? gates : null;
                                setSector(i, { approval });
                              }}
                            />
                          )}
                        </Field>
                      ))}
                      <Field label="Not before" problems={problemsAt(problems, `sectors[${i}].notBefore`)}>
                        {(a) => (
                          <input
                            type="text"
                            {...a}
                            aria-label={`Sector ${s.name || i + 1} not before`}
                            placeholder="2026-11-29T20:00 Europe/Zurich"
                            value={s.notBefore ?? ''}
                            onChange={(e) => setSector(i, { notBefore: e.target.value.trim() || null })}
                            style={{ width: '100%', ...invalidStyle(a['aria-invalid']) }}
                          />
                        )}
                      </Field>
                      {/* the whole row: a selector is longer than the other settings */}
                      <div style={{ gridColumn: '1 / -1' }}>
                        <Field label="Label selector" problems={problemsAt(problems, `sectors[${i}].selector`)}>
                          {(a) => (
                            <>
                              <input
                                type="text"
                                {...a}
                                aria-label={`Sector ${s.name || i + 1} label selector`}
                                placeholder="e.g. env=prod: adds the managed clusters whose policy names no sector"
                                value={s.selector ?? ''}
                                onChange={(e) =>
                                  // not trimmed while typing: `env in (a, b)` has spaces; the server trims on save
                                  setSector(i, { selector: e.target.value || null })
                                }
                                style={{ width: '100%', ...invalidStyle(a['aria-invalid']) }}
                              />
                              <SelectorPreview
                                selector={s.selector ?? ''}
                                note="of these, the managed clusters whose policy names no sector join this one (the first sector selecting them)"
                              />
                            </>
                          )}
                        </Field>
                      </div>
                      <CanaryFields
                        sector={s.name || String(i + 1)}
                        canary={s.canary ?? null}
                        problems={problemsAt(problems, `sectors[${i}].canary`)}
                        onChange={(canary) => setSector(i, { canary })}
                      />
                    </div>
                  </div>
                ))}
                <FieldErrors id="sectors-err" problems={problems.filter((p) => /^(organization\.)?sectors$/.test(p.path))} />
                <button
                  className="btn"
                  onClick={() =>
                    set({
                      sectors: [
                        ...d.sectors,
                        {
                          name: '',
                          maxParallelUpgrades: null,
                          maxConcurrentUpgrades: null,
                          targetVersion: null,
                          maxVersion: null,
                          approval: null,
                          notBefore: null,
                          canary: null,
                          selector: null,
                          dependencies: [],
                        },
                      ],
                    })
                  }
                >
                  Add sector
                </button>
              </fieldset>

              <fieldset style={{ border: 0, padding: 0, margin: 0, minWidth: 0 }}>
                <legend>
                  <h2 style={{ margin: 0 }}>Blocked versions</h2>
                </legend>
                <p className="small muted" style={{ margin: '2px 0 8px' }}>
                  Regexes, unanchored: <code>4.12.1</code> also blocks 4.12.10; write <code>^4\.12\.1$</code> for one version.
                </p>
                {d.blockedVersions.map((b, i) => (
                  <div
                    key={i}
                    style={{
                      display: 'grid',
                      gridTemplateColumns: 'minmax(0,1fr) minmax(0,1.5fr) auto',
                      gap: 8,
                      alignItems: 'start',
                      marginBottom: 8,
                    }}
                  >
                    <Field label={`Pattern ${i + 1}`} problems={problemsAt(problems, `blockedVersions[${i}]`)}>
                      {(a) => (
                        <input
                          type="text"
                          {...a}
                          className="mono"
                          value={b.pattern}
                          onChange={(e) =>
                            set({ blockedVersions: d.blockedVersions.map((x, j) => (j === i ? { ...x, pattern: e.target.value } : x)) })
                          }
                          style={invalidStyle(a['aria-invalid'])}
                        />
                      )}
                    </Field>
                    <Field label="Reason">
                      {(a) => (
                        <input
                          type="text"
                          {...a}
                          value={b.reason}
                          onChange={(e) =>
                            set({ blockedVersions: d.blockedVersions.map((x, j) => (j === i ? { ...x, reason: e.target.value } : x)) })
                          }
                        />
                      )}
                    </Field>
                    <button
                      className="btn"
                      style={{ marginTop: 20 }}
                      aria-label={`Unblock ${b.pattern || i + 1}`}
                      onClick={() => set({ blockedVersions: d.blockedVersions.filter((_, j) => j !== i) })}
                    >
                      Remove
                    </button>
                  </div>
                ))}
                <button className="btn" onClick={() => set({ blockedVersions: [...d.blockedVersions, { pattern: '', reason: '' }] })}>
                  Block a version
                </button>
              </fieldset>

              <fieldset style={{ border: 0, padding: 0, margin: 0, minWidth: 0 }}>
                <legend>
                  <h2 style={{ margin: 0 }}>Where upgrades stop</h2>
                </legend>
                <p className="small muted" style={{ marginTop: 0 }}>
                  For every cluster: a release (4.16.3) or a whole minor (4.16.*). Sectors and cluster policies may set lower ones; the
                  lowest applies. Empty: none.
                </p>
                <div className="grid-2" style={{ gap: 10 }}>
                  <VersionBoundField
                    label="Target version"
                    value={d.targetVersion}
                    problems={problemsAt(problems, 'targetVersion')}
                    onChange={(v) => set({ targetVersion: v })}
                  />
                  <VersionBoundField
                    label="Cap (max version)"
                    value={d.maxVersion}
                    problems={problemsAt(problems, 'maxVersion')}
                    onChange={(v) => set({ maxVersion: v })}
                  />
                </div>
              </fieldset>

              <fieldset style={{ border: 0, padding: 0, margin: 0, minWidth: 0, display: 'flex', flexDirection: 'column', gap: 10 }}>
                <legend>
                  <h2 style={{ margin: 0 }}>Allow-lists</h2>
                </legend>
                <AllowList
                  label="Allowed workloads"
                  value={d.upgradePolicyAllowedWorkloads}
                  suggestions={current.workloadsInUse}
                  problems={problemsAt(problems, 'upgradePolicyAllowedWorkloads')}
                  onChange={(v) => set({ upgradePolicyAllowedWorkloads: v })}
                />
                <AllowList
                  label="Allowed mutexes"
                  value={d.upgradePolicyAllowedMutexes}
                  suggestions={current.mutexesInUse}
                  problems={problemsAt(problems, 'upgradePolicyAllowedMutexes')}
                  onChange={(v) => set({ upgradePolicyAllowedMutexes: v })}
                />
              </fieldset>
            </section>
            <section className="panel" aria-label="Organization YAML">
              <YamlPane label="Organization settings (YAML)" yaml={draft.yaml} error={draft.yamlError} onChange={draft.setYaml} />
            </section>
          </div>
          <div className="grid-2">
            <ValidationPanel
              pending={draft.dirty && (validation.isFetching || validation.isPending)}
              problems={problems}
              warnings={draft.dirty ? (validation.data?.warnings ?? []) : []}
              yamlError={draft.yamlError}
            />
            <ChangesPanel changes={changes} />
          </div>
          <ForecastImpactPanel impact={valid && changes.length > 0 ? forecastImpact : null} />
          <ImpactPanel impact={valid && changes.length > 0 ? impact : null} />
          <HistoryPanel scope="organization" currentRevision={current.revision} onReverted={() => setSaved('Reverted.')} />
        </>
      )}
    </QueryState>
  );
}

function AllowList({
  label,
  value,
  suggestions,
  problems,
  onChange,
}: {
  label: string;
  value: string[] | null;
  suggestions: string[];
  problems: FieldProblem[];
  onChange: (v: string[] | null) => void;
}) {
  return (
    <div>
      <label className="small" style={{ display: 'flex', gap: 6, alignItems: 'center' }}>
        <input type="checkbox" checked={value !== null} onChange={(e) => onChange(e.target.checked ? [...suggestions] : null)} /> {label}:
        only these may be used
      </label>
      {value !== null && (
        <Field label={label} hint="comma-separated" problems={problems}>
          {(a) => <ListInput {...a} value={value} onChange={onChange} suggestions={suggestions} />}
        </Field>
      )}
    </div>
  );
}

function FreezePanel({ frozen, reason, revision }: { frozen: boolean; reason: string | null; revision: number }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [text, setText] = useState('');
  const freeze = useMutation(
    trpc.policies.setFreeze.mutationOptions({
      onSuccess: async () => {
        setText('');
        await queryClient.invalidateQueries({ queryKey: trpc.policies.pathKey() });
        await queryClient.invalidateQueries({ queryKey: trpc.fleet.pathKey() });
      },
    }),
  );
  return (
    <section
      className={frozen ? 'banner bad' : 'panel'}
      aria-labelledby="freeze-h"
      style={{ display: 'flex', gap: 10, alignItems: 'center', flexWrap: 'wrap' }}
    >
      <strong id="freeze-h">{frozen ? 'Fleet frozen' : 'Fleet freeze'}</strong>
      <span className="small" style={{ color: frozen ? undefined : 'var(--muted)' }}>
        {frozen ? `No new upgrades start. Reason: ${reason ?? '—'}` : 'Stops every new upgrade at once (running ones continue).'}
      </span>
      <input
        type="text"
        aria-label={frozen ? 'Why lift the freeze (optional)' : 'Why freeze (required)'}
        placeholder={frozen ? 'note (optional)' : 'reason (required)'}
        value={text}
        onChange={(e) => setText(e.target.value)}
        style={{ marginLeft: 'auto', minWidth: 220 }}
      />
      <button
        className={`btn ${frozen ? '' : 'danger'}`}
        disabled={freeze.isPending || (!frozen && text.trim() === '')}
        onClick={() => freeze.mutate({ frozen: !frozen, reason: text, expectedRevision: revision })}
      >
        {frozen ? 'Lift the freeze' : 'Freeze upgrades'}
      </button>
      {freeze.isError && (
        <span className="small" role="alert" style={{ color: 'var(--bad)', width: '100%' }}>
          {freeze.error.message}
        </span>
      )}
    </section>
  );
}

/**
 * A sector's canaries: none, a count or a percent of the sector, the soak before the rest follow,
 * and which clusters may be canaries (a label selector). The plan validator checks the values.
 */
function CanaryFields({
  sector,
  canary,
  problems,
  onChange,
}: {
  sector: string;
  canary: Canary | null;
  problems: FieldProblem[];
  onChange: (canary: Canary | null) => void;
}) {
  const kind = canary === null ? 'none' : canary.percent !== undefined ? 'percent' : 'count';
  const size = canary?.percent ?? canary?.count;
  const number = (text: string) => (text.trim() === '' || !Number.isFinite(Number(text)) ? undefined : Number(text));
  const withSize = (k: string, value: number | undefined): Canary | null => {
    if (k === 'none') return null;
    const rest = {
      ...(canary?.soakHours !== undefined ? { soakHours: canary.soakHours } : {}),
      ...(canary?.selector ? { selector: canary.selector } : {}),
    };
    return k === 'percent' ? { percent: value ?? 10, ...rest } : { count: value ?? 1, ...rest };
  };
  return (
    // the whole row: a kind, a size, a soak and a selector do not fit one column
    <div style={{ gridColumn: '1 / -1' }}>
      <Field label="Canaries" problems={problems}>
        {(a) => (
          <div className="row" style={{ flexWrap: 'wrap', gap: 6, alignItems: 'center' }}>
            <select
              id={a.id}
              aria-label={`Sector ${sector} canaries`}
              aria-invalid={a['aria-invalid']}
              value={kind}
              onChange={(e) => onChange(withSize(e.target.value, size))}
            >
              <option value="none">none</option>
              <option value="count">first N clusters</option>
              <option value="percent">first P% of the sector</option>
            </select>
            {canary !== null ? (
              <>
                <input
                  type="number"
                  min={1}
                  max={kind === 'percent' ? 100 : undefined}
                  aria-label={`Sector ${sector} canary ${kind === 'percent' ? 'percent' : 'count'}`}
                  value={size ?? ''}
                  onChange={(e) => onChange(withSize(kind, number(e.target.value)))}
                  style={{ width: 70, ...invalidStyle(a['aria-invalid']) }}
                />
                <label className="small" style={{ whiteSpace: 'nowrap' }}>
                  soak{' '}
                  <input
                    type="number"
                    min={0}
                    aria-label={`Sector ${sector} canary soak hours`}
                    value={canary.soakHours ?? ''}
                    onChange={(e) => {
                      const { soakHours: _, ...rest } = canary;
                      const hours = number(e.target.value);
                      onChange(hours === undefined ? rest : { ...rest, soakHours: hours });
                    }}
                    style={{ width: 70, ...invalidStyle(a['aria-invalid']) }}
                  />{' '}
                  h
                </label>
                <input
                  type="text"
                  aria-label={`Sector ${sector} canary selector`}
                  placeholder="canary=true (optional: which clusters may be canaries)"
                  value={canary.selector ?? ''}
                  onChange={(e) => {
                    const { selector: _, ...rest } = canary;
                    onChange(e.target.value ? { ...rest, selector: e.target.value } : rest);
                  }}
                  style={{ flex: 1, minWidth: 160, ...invalidStyle(a['aria-invalid']) }}
                />
              </>
            ) : null}
          </div>
        )}
      </Field>
    </div>
  );
}

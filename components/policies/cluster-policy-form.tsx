'use client';
// The form side of a cluster policy: workloads, schedule (cron string or object with zone,
// ISO weeks and suspend), soak days, mutexes, sector and the cluster's own blocked versions.
import { Field, invalidStyle, ListInput, VersionBoundField, ZoneSelect, type FieldProblem } from './fields';
import { isObject, strings, withConditions, type PolicyDoc } from './policy-doc';

export function ClusterPolicyForm({
  doc,
  onChange,
  problems,
  sectors,
  workloads,
  mutexes,
}: {
  doc: PolicyDoc;
  onChange: (next: PolicyDoc) => void;
  problems: Record<string, FieldProblem[]>;
  sectors: string[];
  workloads: string[];
  mutexes: string[];
}) {
  const schedule = doc.schedule;
  const objectForm = isObject(schedule);
  const cron = objectForm ? String(schedule.cron ?? '') : typeof schedule === 'string' ? schedule : '';
  const conditions = isObject(doc.conditions) ? doc.conditions : {};
  const setSchedule = (patch: Record<string, unknown>) => {
    const base = objectForm ? { ...schedule } : { cron };
    const next: Record<string, unknown> = { ...base, ...patch };
    for (const k of Object.keys(next))
      if (next[k] === undefined || next[k] === '' || (k === 'suspend' && next[k] === false)) delete next[k];
    onChange({ ...doc, schedule: next as PolicyDoc['schedule'] });
  };

  return (
    <div style={{ display: 'flex', flexDirection: 'column', gap: 12 }}>
      <Field label="Workloads" hint="comma-separated" problems={problems.workloads}>
        {(a) => (
          <ListInput
            {...a}
            value={strings(doc.workloads)}
            onChange={(w) => onChange({ ...doc, workloads: w })}
            suggestions={workloads}
            placeholder="ocm, telemeter"
          />
        )}
      </Field>

      <fieldset
        style={{
          border: '1px solid var(--border)',
          borderRadius: 'var(--radius)',
          padding: '8px 12px',
          display: 'flex',
          flexDirection: 'column',
          gap: 10,
          minWidth: 0,
        }}
      >
        <legend className="small" style={{ fontWeight: 600 }}>
          Schedule
        </legend>
        <div role="radiogroup" aria-label="Schedule form" style={{ display: 'flex', gap: 16 }} className="small">
          <label>
            <input type="radio" name="schedule-form" checked={!objectForm} onChange={() => onChange({ ...doc, schedule: cron })} /> cron
            string (UTC)
          </label>
          <label>
            <input
              type="radio"
              name="schedule-form"
              checked={objectForm}
              onChange={() => onChange({ ...doc, schedule: { cron, location: 'UTC' } })}
            />{' '}
            with time zone / ISO weeks
          </label>
        </div>
        <Field label="Cron" hint="minute hour day-of-month month day-of-week" problems={problems['schedule.cron']}>
          {(a) => (
            <input
              type="text"
              {...a}
              className="mono"
              value={cron}
              onChange={(e) => (objectForm ? setSchedule({ cron: e.target.value }) : onChange({ ...doc, schedule: e.target.value }))}
              style={invalidStyle(a['aria-invalid'])}
            />
          )}
        </Field>
        {objectForm && (
          <div className="grid-2" style={{ gap: 10 }}>
            <Field label="Time zone" problems={problems['schedule.location']}>
              {(a) => <ZoneSelect {...a} value={String(schedule.location ?? 'UTC')} onChange={(z) => setSchedule({ location: z })} />}
            </Field>
            <Field label="ISO weeks" hint="@odd, @even or 1,5,9" problems={problems['schedule.isoWeek']}>
              {(a) => (
                <input
                  type="text"
                  {...a}
                  value={schedule.isoWeek === undefined ? '' : String(schedule.isoWeek)}
                  onChange={(e) => setSchedule({ isoWeek: e.target.value || undefined })}
                  style={invalidStyle(a['aria-invalid'])}
                />
              )}
            </Field>
            <label className="small" style={{ display: 'flex', gap: 6, alignItems: 'center' }}>
              <input type="checkbox" checked={schedule.suspend === true} onChange={(e) => setSchedule({ suspend: e.target.checked })} />{' '}
              Suspend (no new upgrades)
            </label>
          </div>
        )}
      </fieldset>

      <div className="grid-2" style={{ gap: 10 }}>
        <Field label="Soak days" hint="empty = no soak check" problems={problems['conditions.soakDays']}>
          {(a) => (
            <input
              type="number"
              {...a}
              min={0}
              step="any"
              value={conditions.soakDays === undefined ? '' : String(conditions.soakDays)}
              onChange={(e) => onChange(withConditions(doc, { soakDays: e.target.value === '' ? undefined : Number(e.target.value) }))}
              style={invalidStyle(a['aria-invalid'])}
            />
          )}
        </Field>
        <Field label="Sector" problems={problems['conditions.sector']}>
          {(a) => (
            <select
              {...a}
              value={typeof conditions.sector === 'string' ? conditions.sector : ''}
              onChange={(e) => onChange(withConditions(doc, { sector: e.target.value || undefined }))}
              style={invalidStyle(a['aria-invalid'])}
            >
              <option value="">no sector</option>
              {typeof conditions.sector === 'string' && conditions.sector !== '' && !sectors.includes(conditions.sector) && (
                <option value={conditions.sector}>{conditions.sector} (unknown)</option>
              )}
              {sectors.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <div className="grid-2" style={{ gap: 10 }}>
        <VersionBoundField
          label="Target version"
          hint="4.16.3 or 4.16.*: upgrades stop there"
          value={typeof conditions.targetVersion === 'string' ? conditions.targetVersion : null}
          problems={problems['conditions.targetVersion']}
          onChange={(v) => onChange(withConditions(doc, { targetVersion: v ?? undefined }))}
        />
        <VersionBoundField
          label="Cap (max version)"
          hint="4.16.3 or 4.16.*: never past it"
          value={typeof conditions.maxVersion === 'string' ? conditions.maxVersion : null}
          problems={problems['conditions.maxVersion']}
          onChange={(v) => onChange(withConditions(doc, { maxVersion: v ?? undefined }))}
        />
      </div>
      <Field label="Mutexes" hint="comma-separated; one cluster at a time per mutex" problems={problems['conditions.mutexes']}>
        {(a) => (
          <ListInput
            {...a}
            value={strings(conditions.mutexes)}
            onChange={(m) => onChange(withConditions(doc, { mutexes: m }))}
            suggestions={mutexes}
          />
        )}
      </Field>
      <Field
        label="Blocked versions for this cluster"
        hint="one regex per line, added to the organization's"
        problems={problems['conditions.blockedVersions']}
      >
        {(a) => (
          <ListInput
            {...a}
            multiline
            value={strings(conditions.blockedVersions)}
            onChange={(b) => onChange(withConditions(doc, { blockedVersions: b }))}
            placeholder={'^4\\.13\\.0$'}
          />
        )}
      </Field>
    </div>
  );
}

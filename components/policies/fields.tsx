'use client';
// Small form controls of the policy editor: every control has a label, an id and shows the
// problems reported at its field right under it (aria-describedby), so errors sit where they are.
import { useEffect, useId, useMemo, useState, type ReactNode } from 'react';

export interface FieldProblem {
  path: string;
  message: string;
}

export function FieldErrors({ id, problems }: { id: string; problems: FieldProblem[] | undefined }) {
  if (!problems?.length) return null;
  return (
    <div id={id} className="field-errors" role="alert">
      {problems.map((p) => (
        <div key={p.path + p.message} className="small" style={{ color: 'var(--bad)' }}>
          {p.message}
        </div>
      ))}
    </div>
  );
}

export function Field({
  label,
  hint,
  problems,
  children,
}: {
  label: string;
  hint?: string;
  problems?: FieldProblem[];
  children: (props: { id: string; 'aria-invalid'?: boolean; 'aria-describedby'?: string }) => ReactNode;
}) {
  const id = useId();
  const errId = `${id}-err`;
  const invalid = !!problems?.length;
  return (
    <div style={{ display: 'flex', flexDirection: 'column', gap: 3, minWidth: 0 }}>
      <label htmlFor={id} className="small" style={{ fontWeight: 600 }}>
        {label}
        {hint && (
          <span className="muted" style={{ fontWeight: 400 }}>
            {' '}
            · {hint}
          </span>
        )}
      </label>
      {children({ id, 'aria-invalid': invalid || undefined, 'aria-describedby': invalid ? errId : undefined })}
      <FieldErrors id={errId} problems={problems} />
    </div>
  );
}

export const invalidStyle = (invalid: boolean | undefined) =>
  invalid ? { borderColor: 'var(--bad)', boxShadow: '0 0 0 1px var(--bad)' } : undefined;

function splitList(text: string): string[] {
  return text
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/**
 * A list of names typed as comma-separated text. Keeps the user's text while it still means the
 * same list, so typing "a, " is not rewritten under the cursor; re-syncs when the list changes
 * from elsewhere (the YAML side).
 */
export function ListInput({
  value,
  onChange,
  placeholder,
  suggestions,
  multiline,
  ...aria
}: {
  value: string[];
  onChange: (next: string[]) => void;
  placeholder?: string;
  suggestions?: string[];
  multiline?: boolean;
  id?: string;
  'aria-invalid'?: boolean;
  'aria-describedby'?: string;
}) {
  const sep = multiline ? '\n' : ', ';
  const [text, setText] = useState(value.join(sep));
  useEffect(() => {
    if (splitList(text).join('\u0000') !== value.join('\u0000')) setText(value.join(sep));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [value.join('\u0000')]);
  const listId = useMemo(() => (suggestions?.length && aria.id ? `${aria.id}-list` : undefined), [suggestions, aria.id]);
  const common = {
    ...aria,
    value: text,
    placeholder,
    style: { width: '100%', ...invalidStyle(aria['aria-invalid']) },
    onChange: (e: { target: { value: string } }) => {
      setText(e.target.value);
      onChange(splitList(e.target.value));
    },
  };
  return multiline ? (
    <textarea rows={3} {...common} />
  ) : (
    <>
      <input type="text" list={listId} {...common} />
      {listId && (
        <datalist id={listId}>
          {suggestions!.map((s) => (
            <option key={s} value={s} />
          ))}
        </datalist>
      )}
    </>
  );
}

let zones: string[] | null = null;
/** IANA zones known to this browser (the server validates with the same Intl data). */
export function timeZones(): string[] {
  if (!zones) {
    const intl = Intl as unknown as { supportedValuesOf?: (k: string) => string[] };
    zones = ['UTC', ...(intl.supportedValuesOf?.('timeZone') ?? []).filter((z) => z !== 'UTC')];
  }
  return zones;
}

export function ZoneSelect({
  value,
  onChange,
  ...aria
}: {
  value: string;
  onChange: (z: string) => void;
  id?: string;
  'aria-invalid'?: boolean;
  'aria-describedby'?: string;
}) {
  const list = timeZones();
  return (
    <select {...aria} value={value} onChange={(e) => onChange(e.target.value)} style={invalidStyle(aria['aria-invalid'])}>
      {!list.includes(value) && <option value={value}>{value} (unknown)</option>}
      {list.map((z) => (
        <option key={z} value={z}>
          {z}
        </option>
      ))}
    </select>
  );
}

/** A target version or a cap: a release (4.16.3) or a whole minor (4.16.*); empty = none (null). */
export function VersionBoundField({
  label,
  hint,
  value,
  problems,
  onChange,
}: {
  label: string;
  hint?: string;
  value: string | null | undefined;
  problems?: FieldProblem[];
  onChange: (value: string | null) => void;
}) {
  return (
    <Field label={label} hint={hint} problems={problems}>
      {(a) => (
        <input
          type="text"
          {...a}
          placeholder="none"
          value={value ?? ''}
          onChange={(e) => onChange(e.target.value.trim() || null)}
          style={invalidStyle(a['aria-invalid'])}
        />
      )}
    </Field>
  );
}

'use client';
// The YAML side of an editor: a plain textarea (keyboard friendly) with the parse error below.
export function YamlPane({
  label,
  yaml,
  error,
  onChange,
  problems,
}: {
  label: string;
  yaml: string;
  error: string | null;
  onChange: (t: string) => void;
  problems?: { path: string; message: string }[];
}) {
  return (
    <div style={{ display: 'flex', flexDirection: 'column', gap: 6, minWidth: 0 }}>
      <label htmlFor="policy-yaml" className="small" style={{ fontWeight: 600 }}>
        {label}{' '}
        <span className="muted" style={{ fontWeight: 400 }}>
          · edit here or in the form; both stay in sync
        </span>
      </label>
      <textarea
        id="policy-yaml"
        spellCheck={false}
        value={yaml}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={!!error || undefined}
        aria-describedby={error ? 'policy-yaml-err' : undefined}
        style={{ width: '100%', minHeight: 340, resize: 'vertical', ...(error ? { borderColor: 'var(--bad)' } : {}) }}
        onKeyDown={(e) => {
          // Tab inserts two spaces (Escape then Tab leaves the field, for keyboard users).
          if (e.key === 'Tab' && !e.shiftKey && !e.currentTarget.dataset.escaped) {
            e.preventDefault();
            const el = e.currentTarget;
            const { selectionStart: s, selectionEnd: end } = el;
            onChange(`${el.value.slice(0, s)}  ${el.value.slice(end)}`);
            requestAnimationFrame(() => el.setSelectionRange(s + 2, s + 2));
          }
          if (e.key === 'Escape') e.currentTarget.dataset.escaped = '1';
        }}
        onBlur={(e) => delete e.currentTarget.dataset.escaped}
      />
      {error && (
        <div id="policy-yaml-err" role="alert" className="small" style={{ color: 'var(--bad)' }}>
          YAML: {error}
        </div>
      )}
      {problems && problems.length > 0 && (
        <ul className="small" style={{ margin: 0, paddingLeft: 18, color: 'var(--bad)' }} aria-label="Problems">
          {problems.map((p) => (
            <li key={p.path + p.message}>
              <code>{p.path}</code>: {p.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

// Loading, empty and error states, so no page is ever blank or raw.
export function LoadingRows({ rows = 6 }: { rows?: number }) {
  return (
    <div className="loading" role="status" aria-label="Loading">
      {Array.from({ length: rows }, (_, i) => (
        <div key={i} className="skeleton" style={{ margin: '10px 0', width: `${90 - (i % 3) * 12}%` }} />
      ))}
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: React.ReactNode }) {
  return (
    <div className="empty">
      <strong>{title}</strong>
      {children && <div className="small">{children}</div>}
    </div>
  );
}

export function ErrorState({ error, onRetry }: { error: { message: string } | null; onRetry?: () => void }) {
  return (
    <div className="error-state" role="alert">
      <strong>Could not load this data.</strong>
      <div className="small">{error?.message ?? 'Unknown error'}</div>
      {onRetry && (
        <button className="btn" onClick={onRetry} style={{ marginTop: 8 }}>
          Retry
        </button>
      )}
    </div>
  );
}

/** What the server said when an action (a mutation) failed, above the data it was about. */
export function ActionError({ error }: { error: { message: string } | null | undefined }) {
  if (!error) return null;
  return (
    <div className="banner bad small" role="alert" style={{ margin: 12 }}>
      {error.message}
    </div>
  );
}

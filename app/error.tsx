'use client';

export default function ErrorPage({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div className="panel error-state" role="alert">
      <h1>Something went wrong</h1>
      <p>{error.message || 'An unexpected error occurred.'}</p>
      {error.digest && <p className="small muted">Reference: {error.digest}</p>}
      <button className="btn" onClick={reset}>
        Try again
      </button>
    </div>
  );
}

'use client';
// The sign-in screen: username/password, and "Continue as demo operator" when the server offers it.
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTRPC } from '@/components/trpc/client';
import styles from './auth.module.css';
import { ChangePasswordForm } from './change-password-form';
import { safeNextPath } from '@/lib/safe-next-path';

export function LoginForm({ next, changePassword, providerError }: { next?: string; changePassword?: boolean; providerError?: string }) {
  const trpc = useTRPC();
  const options = useQuery(trpc.auth.loginOptions.queryOptions());
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  // a full navigation, so every query refetches with the new session cookie
  const enter = () => window.location.assign(safeNextPath(next));
  const [mustChange, setMustChange] = useState(changePassword ?? false);
  const login = useMutation(
    trpc.auth.login.mutationOptions({ onSuccess: (me) => (me.mustChangePassword ? setMustChange(true) : enter()) }),
  );
  const demo = useMutation(trpc.auth.demoLogin.mutationOptions({ onSuccess: enter }));
  const busy = login.isPending || demo.isPending;
  const error = login.error ?? demo.error;

  function submit(e: FormEvent) {
    e.preventDefault();
    login.mutate({ username: username.trim(), password });
  }

  return (
    <div className={styles.screen}>
      <main className={`panel ${styles.card}`} aria-labelledby="login-title">
        <div className={styles.brand}>
          <svg width="22" height="22" viewBox="0 0 24 24" fill="none" stroke="#4c9aff" strokeWidth="2" aria-hidden="true">
            <path d="M4 17l5-5 4 4 7-8" />
            <path d="M15 8h5v5" />
          </svg>
          fleetplan
        </div>
        <h1 id="login-title">Sign in</h1>
        {mustChange ? (
          <ChangePasswordForm onChanged={enter} />
        ) : (
          <>
            {providerError && (
              <div className="banner bad small" role="alert">
                {providerError}
              </div>
            )}
            {options.data?.providers.map((p) => (
              // a plain link: the sign-in leaves for the provider's page and comes back to the callback
              <a
                key={p.id}
                className={`btn ${options.data?.demoLogin ? '' : 'primary'} ${styles.wide}`}
                href={`/api/auth/${encodeURIComponent(p.id)}/start?next=${encodeURIComponent(safeNextPath(next))}`}
              >
                Sign in with {p.displayName}
              </a>
            ))}
            {options.data?.demoLogin && (
              <>
                <button type="button" className={`btn primary ${styles.wide}`} disabled={busy} onClick={() => demo.mutate()}>
                  Continue as demo operator
                </button>
                <p className="small muted" style={{ margin: 0 }}>
                  A signed-in session for the seeded <span className="mono">demo</span> user (operator role) on this demo fleet.
                </p>
              </>
            )}
            {(options.data?.demoLogin || (options.data?.providers.length ?? 0) > 0) && (
              <div className={styles.divider}>or with a local account</div>
            )}
            <form className={styles.form} onSubmit={submit}>
              <label className={styles.field}>
                Username
                <input
                  type="text"
                  name="username"
                  autoComplete="username"
                  required
                  maxLength={64}
                  value={username}
                  onChange={(e) => setUsername(e.target.value)}
                />
              </label>
              <label className={styles.field}>
                Password
                <input
                  type="password"
                  name="password"
                  autoComplete="current-password"
                  required
                  maxLength={256}
                  value={password}
                  onChange={(e) => setPassword(e.target.value)}
                />
              </label>
              {error && (
                <div className="banner bad small" role="alert">
                  {error.message}
                </div>
              )}
              <button type="submit" className={`btn ${options.data?.demoLogin ? '' : 'primary'} ${styles.wide}`} disabled={busy}>
                {login.isPending ? 'Signing in…' : 'Sign in'}
              </button>
            </form>
          </>
        )}
        <p className="small muted" style={{ margin: 0 }}>
          First start? The <span className="mono">admin</span> password is in the server log (or{' '}
          <span className="mono">FLEETPLAN_ADMIN_PASSWORD</span>).
        </p>
      </main>
    </div>
  );
}

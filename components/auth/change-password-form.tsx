'use client';
// Replacing a printed or admin-set password. The server refuses everything else until this is
// done (server/api/trpc.ts), so the login form shows this right after such a sign-in.
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTRPC } from '@/components/trpc/client';
import styles from './auth.module.css';

export function ChangePasswordForm({ onChanged }: { onChanged: () => void }) {
  const trpc = useTRPC();
  const [currentPassword, setCurrentPassword] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const change = useMutation(trpc.auth.changePassword.mutationOptions({ onSuccess: onChanged }));
  const mismatch = repeat.length > 0 && repeat !== newPassword;

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!mismatch) change.mutate({ currentPassword, newPassword });
  }

  return (
    <form className={styles.form} onSubmit={submit} aria-labelledby="change-password-title">
      <h2 id="change-password-title">Choose a new password</h2>
      <p className="small muted" style={{ margin: 0 }}>
        Your password was printed to the server log or set by an admin. Replace it before going on: at least 12 characters, not a common
        password. Your other sessions and API tokens end.
      </p>
      <label className={styles.field}>
        Current password
        <input
          type="password"
          name="current-password"
          autoComplete="current-password"
          required
          maxLength={256}
          value={currentPassword}
          onChange={(e) => setCurrentPassword(e.target.value)}
        />
      </label>
      <label className={styles.field}>
        New password
        <input
          type="password"
          name="new-password"
          autoComplete="new-password"
          required
          minLength={12}
          maxLength={256}
          value={newPassword}
          onChange={(e) => setNewPassword(e.target.value)}
        />
      </label>
      <label className={styles.field}>
        New password again
        <input
          type="password"
          name="repeat-password"
          autoComplete="new-password"
          required
          maxLength={256}
          value={repeat}
          onChange={(e) => setRepeat(e.target.value)}
        />
      </label>
      {(mismatch || change.error) && (
        <div className="banner bad small" role="alert">
          {mismatch ? 'The two new passwords differ' : change.error?.message}
        </div>
      )}
      <button type="submit" className={`btn primary ${styles.wide}`} disabled={change.isPending || mismatch}>
        {change.isPending ? 'Saving…' : 'Change password'}
      </button>
    </form>
  );
}

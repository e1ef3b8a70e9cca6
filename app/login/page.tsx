import type { Metadata } from 'next';
import { LoginForm } from '@/components/auth/login-form';

export const metadata: Metadata = { title: 'Sign in' };

export default async function LoginPage({
  searchParams,
}: {
  searchParams: Promise<{ next?: string | string[]; change?: string | string[]; error?: string | string[] }>;
}) {
  const { next, change, error } = await searchParams;
  return (
    <LoginForm
      next={typeof next === 'string' ? next : undefined}
      changePassword={change === '1'}
      // a failed sign-in at an identity provider comes back here with its reason (server/http/external-sign-in.ts)
      providerError={typeof error === 'string' ? error.slice(0, 400) : undefined}
    />
  );
}

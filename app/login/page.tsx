import type { Metadata } from 'next';
import { LoginForm } from '@/components/auth/login-form';

export const metadata: Metadata = { title: 'Sign in' };

export default async function LoginPage({
  searchParams,
}: {
  searchParams: Promise<{ next?: string | string[]; change?: string | string[] }>;
}) {
  const { next, change } = await searchParams;
  return <LoginForm next={typeof next === 'string' ? next : undefined} changePassword={change === '1'} />;
}

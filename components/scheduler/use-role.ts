'use client';
// Who may do what in the UI (the server enforces the same roles; this only hides/disables).
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc/client';

export function useRole() {
  const trpc = useTRPC();
  const me = useQuery({ ...trpc.auth.me.queryOptions(), staleTime: 60_000 });
  const role = me.data?.role ?? null;
  return {
    known: me.isSuccess,
    role,
    canOperate: role === 'operator' || role === 'admin',
    isAdmin: role === 'admin',
  };
}

export const OPERATOR_ONLY = 'Operators and admins only';

'use client';
// Who may do what in the UI (the server enforces the same roles; this only hides/disables).
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc/client';
import { useHydrated } from '@/components/ui/use-hydrated';

export function useRole() {
  const trpc = useTRPC();
  const me = useQuery({ ...trpc.auth.me.queryOptions(), staleTime: 60_000 });
  // auth.me is shared with the top bar: see useHydrated for why it is read only once hydrated.
  const hydrated = useHydrated();
  const role = hydrated ? (me.data?.role ?? null) : null;
  return {
    known: hydrated && me.isSuccess,
    role,
    canOperate: role === 'operator' || role === 'admin',
    isAdmin: role === 'admin',
  };
}

export const OPERATOR_ONLY = 'Operators and admins only';

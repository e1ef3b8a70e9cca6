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
  // the role on the page's organization (a grant there replaces the global role) decides what it offers
  const role = hydrated ? (me.data ? me.data.organizationRole : null) : null;
  return {
    known: hydrated && me.isSuccess,
    role,
    canOperate: role === 'operator' || role === 'admin',
    isAdmin: role === 'admin',
    /** an admin of the whole instance (users, tokens, every organization's activity) */
    isInstanceAdmin: hydrated && me.data?.role === 'admin',
  };
}

export const OPERATOR_ONLY = 'Operators and admins only';

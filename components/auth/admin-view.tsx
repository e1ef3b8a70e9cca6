'use client';
// The admin page body: users (admins only) and API tokens (everyone, for their own tokens).
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc/client';
import { ErrorState, LoadingRows } from '@/components/ui/states';
import { useHydrated } from '@/components/ui/use-hydrated';
import { TokensPanel } from './tokens-panel';
import { UsersPanel } from './users-panel';
import { OrganizationRolesPanel } from './organization-roles-panel';
import { OrganizationGroupMappingsPanel } from './organization-group-mappings-panel';
import { InstanceBlockedVersionsPanel } from './instance-blocked-versions-panel';

export function AdminView() {
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  // auth.me is shared with the top bar's user menu (see useHydrated).
  const hydrated = useHydrated();
  if (!hydrated || me.isPending) return <LoadingRows rows={4} />;
  if (me.isError) return <ErrorState error={me.error} onRetry={() => void me.refetch()} />;
  if (!me.data) return <ErrorState error={{ message: 'You are not signed in.' }} />;
  return (
    <>
      {me.data.role === 'admin' ? (
        <>
          <UsersPanel />
          <OrganizationRolesPanel />
          <OrganizationGroupMappingsPanel />
          <InstanceBlockedVersionsPanel />
        </>
      ) : (
        <div className="banner info small">
          Managing users needs the admin role; you are {me.data.role}. You can manage your own API tokens below.
        </div>
      )}
      <TokensPanel role={me.data.role} />
    </>
  );
}

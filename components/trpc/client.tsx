'use client';
// Client-side tRPC + react-query wiring. Components call useTRPC() and useQuery(trpc.x.y.queryOptions()).
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createTRPCClient, httpBatchLink } from '@trpc/client';
import { createTRPCContext } from '@trpc/tanstack-react-query';
import { useState, type ReactNode } from 'react';
import type { AppRouter } from '@/server/api/root';
import { organizationInAddress } from '@/components/shell/organization-link';

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

function readCsrfToken(): string {
  const match = document.cookie.match(/(?:^|; )fleetplan_csrf=([^;]+)/);
  return match?.[1] ? decodeURIComponent(match[1]) : '';
}

/**
 * The organization the page shows: `?org=NAME` in the address, sent with every call as the
 * `x-fleetplan-org` header (server/services/organization-scope.ts). Without it the server uses the
 * user's remembered organization, else the first one.
 */
function organizationHeader(): Record<string, string> {
  const org = organizationInAddress();
  return org ? { 'x-fleetplan-org': encodeURIComponent(org) } : {};
}

export function TRPCReactProvider({ children }: { children: ReactNode }) {
  const [queryClient] = useState(
    () => new QueryClient({ defaultOptions: { queries: { staleTime: 10_000, retry: 1, refetchOnWindowFocus: false } } }),
  );
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      // POST for queries too: policy drafts sent to validateDraft/previewImpact can outgrow a URL.
      links: [
        httpBatchLink({
          url: '/api/trpc',
          methodOverride: 'POST',
          headers: () => ({ 'x-csrf-token': readCsrfToken(), ...organizationHeader() }),
        }),
      ],
    }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}

'use client';
import type { ReactNode } from 'react';
import { TRPCReactProvider } from '@/components/trpc/client';
import { FleetNowProvider } from '@/components/shell/fleet-now';

export function Providers({ children }: { children: ReactNode }) {
  return (
    <TRPCReactProvider>
      <FleetNowProvider>{children}</FleetNowProvider>
    </TRPCReactProvider>
  );
}

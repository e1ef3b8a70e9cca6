'use client';
import type { ReactNode } from 'react';
import { TRPCReactProvider } from '@/components/trpc/client';

export function Providers({ children }: { children: ReactNode }) {
  return <TRPCReactProvider>{children}</TRPCReactProvider>;
}

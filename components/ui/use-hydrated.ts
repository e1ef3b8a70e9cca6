'use client';
// False while React hydrates server HTML, true from then on (and at once for later mounts).
//
// Why: the client's query cache is shared across the page. The top bar's queries (auth.me,
// fleet.status) can finish before a slower part of the page hydrates, and a component reading
// them would then render other HTML than the server did (which had no data): a hydration error.
// Reading shared query data only once hydrated keeps the first client render equal to the server's.
import { useSyncExternalStore } from 'react';

const subscribeToNothing = () => () => {};

export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribeToNothing,
    () => true,
    () => false,
  );
}

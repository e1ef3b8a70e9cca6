'use client';
// Loading, error and empty for one query, so a page writes only what it shows when there is data.
import type { ReactNode } from 'react';
import { EmptyState, ErrorState, LoadingRows } from './states';

interface QueryLike<T> {
  data: T | undefined;
  isPending: boolean;
  isError: boolean;
  error: { message: string } | null;
  refetch: () => unknown;
}

export function QueryState<T>({
  query,
  isEmpty,
  empty,
  loadingRows,
  children,
}: {
  query: QueryLike<T>;
  /** When the loaded data counts as empty (default: never). */
  isEmpty?: (data: T) => boolean;
  /** What an empty result shows: a title, or a title with a hint. */
  empty?: string | { title: string; hint?: ReactNode };
  loadingRows?: number;
  children: (data: T) => ReactNode;
}) {
  if (query.isError) return <ErrorState error={query.error} onRetry={() => void query.refetch()} />;
  if (query.isPending || query.data === undefined) return <LoadingRows rows={loadingRows} />;
  if (empty !== undefined && isEmpty?.(query.data)) {
    const { title, hint } = typeof empty === 'string' ? { title: empty, hint: undefined } : empty;
    return <EmptyState title={title}>{hint}</EmptyState>;
  }
  return <>{children(query.data)}</>;
}

'use client';
// Loading, error and empty for one query, so a page writes only what it shows when there is data.
import type { ReactNode } from 'react';
import { EmptyState, ErrorState, LoadingRows } from './states';

export interface QueryLike<T> {
  data: T | undefined;
  isPending: boolean;
  isError: boolean;
  /** tRPC errors carry the server's code in `data` (NOT_FOUND, …). */
  error: { message: string; data?: { code?: string } | null } | null;
  refetch: () => unknown;
}

type EmptyView = string | { title: string; hint?: ReactNode };

export function QueryState<T>({
  query,
  isEmpty,
  empty,
  notFound,
  frame = (state) => state,
  loadingRows,
  children,
}: {
  query: QueryLike<T>;
  /** When the loaded data counts as empty (default: never). */
  isEmpty?: (data: T) => boolean;
  /** What an empty result shows: a title, or a title with a hint (which may name the data's numbers). */
  empty?: EmptyView | ((data: T) => EmptyView);
  /** Shown instead of the error when the server answered NOT_FOUND ("No cluster named …"). */
  notFound?: ReactNode;
  /** Wraps the loading, error and empty views (not the data), e.g. in the panel the data would fill. */
  frame?: (state: ReactNode) => ReactNode;
  loadingRows?: number;
  children: (data: T) => ReactNode;
}) {
  if (query.isError) {
    if (notFound !== undefined && query.error?.data?.code === 'NOT_FOUND') return <>{frame(notFound)}</>;
    return <>{frame(<ErrorState error={query.error} onRetry={() => void query.refetch()} />)}</>;
  }
  if (query.isPending || query.data === undefined) return <>{frame(<LoadingRows rows={loadingRows} />)}</>;
  const data = query.data;
  if (empty !== undefined && isEmpty?.(data)) {
    const view = typeof empty === 'function' ? empty(data) : empty;
    const { title, hint } = typeof view === 'string' ? { title: view, hint: undefined } : view;
    return <>{frame(<EmptyState title={title}>{hint}</EmptyState>)}</>;
  }
  return <>{children(data)}</>;
}

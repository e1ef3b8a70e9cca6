// What the shared loading/error/empty wrapper shows for each state of a query, rendered to HTML.
import { createElement, type ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { QueryState, type QueryLike } from './query-state';

type Rows = { items: string[] };

function query(state: Partial<QueryLike<Rows>>): QueryLike<Rows> {
  return { data: undefined, isPending: false, isError: false, error: null, refetch: () => undefined, ...state };
}

function render(props: Omit<Parameters<typeof QueryState<Rows>>[0], 'children'>, children = (d: Rows) => `rows: ${d.items.join(',')}`) {
  return renderToStaticMarkup(createElement(QueryState<Rows>, { ...props, children }));
}

const frame = (state: ReactNode) => createElement('section', { className: 'framed' }, state);

describe('QueryState', () => {
  it('shows the data once loaded', () => {
    expect(render({ query: query({ data: { items: ['a', 'b'] } }) })).toBe('rows: a,b');
  });

  it('shows loading rows while pending, inside the frame', () => {
    const html = render({ query: query({ isPending: true }), frame, loadingRows: 2 });
    expect(html).toMatch(/^<section class="framed"><div class="loading" role="status"/);
    expect(html.match(/class="skeleton"/g)).toHaveLength(2);
  });

  it('shows the error with a retry, inside the frame', () => {
    const html = render({ query: query({ isError: true, error: { message: 'boom' } }), frame });
    expect(html).toContain('<section class="framed"><div class="error-state" role="alert">');
    expect(html).toContain('boom');
    expect(html).toContain('Retry');
  });

  it('shows the not-found view only for a NOT_FOUND error', () => {
    const notFound = createElement('p', null, 'No cluster named x');
    const missing = render({ query: query({ isError: true, error: { message: 'gone', data: { code: 'NOT_FOUND' } } }), notFound });
    expect(missing).toBe('<p>No cluster named x</p>');
    const failed = render({
      query: query({ isError: true, error: { message: 'db down', data: { code: 'INTERNAL_SERVER_ERROR' } } }),
      notFound,
    });
    expect(failed).toContain('db down');
    expect(failed).not.toContain('No cluster named x');
  });

  it('shows the empty view, which may name the data', () => {
    const html = render({
      query: query({ data: { items: [] } }),
      frame,
      isEmpty: (d) => d.items.length === 0,
      empty: (d) => ({ title: 'Nothing here', hint: `${d.items.length} items` }),
    });
    expect(html).toBe(
      '<section class="framed"><div class="empty"><strong>Nothing here</strong><div class="small">0 items</div></div></section>',
    );
  });

  it('shows the data, not the empty view, when isEmpty says no', () => {
    expect(render({ query: query({ data: { items: ['a'] } }), isEmpty: (d) => d.items.length === 0, empty: 'Nothing here' })).toBe(
      'rows: a',
    );
  });
});

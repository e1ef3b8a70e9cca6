'use client';
// Page state that lives in the address bar, so a view can be shared and Back/Forward walk through
// it. The state is read from the URL on every render (Next keeps useSearchParams in step with
// history.pushState/replaceState and with Back/Forward), so there is no second copy to drift.
import { usePathname, useSearchParams } from 'next/navigation';
import { useCallback, useEffect, useRef, useState } from 'react';
import { readUrlState, writeUrlState, type UrlFields } from './url-state';
import { useDebounced } from './use-debounced';

export type UrlStateUpdate<T> = (patch: Partial<T>, opts?: { replace?: boolean }) => void;

/**
 * `[values, update]`: `update(patch)` pushes a history entry (a choice the operator may want to go
 * Back from); `{ replace: true }` rewrites the current one (typing in a search box).
 * `defaults` must be a stable object (a module constant).
 */
export function useUrlState<T extends UrlFields>(defaults: T): [T, UrlStateUpdate<T>] {
  const params = useSearchParams();
  const pathname = usePathname();
  const values = readUrlState(params, defaults);
  const update = useCallback<UrlStateUpdate<T>>(
    (patch, opts) => {
      const current = new URLSearchParams(window.location.search);
      const next = { ...readUrlState(current, defaults), ...patch };
      const query = writeUrlState(current, defaults, next);
      if (query === window.location.search) return;
      const url = `${pathname}${query}${window.location.hash}`;
      if (opts?.replace) window.history.replaceState(null, '', url);
      else window.history.pushState(null, '', url);
    },
    [defaults, pathname],
  );
  return [values, update];
}

/**
 * A text box bound to a URL field: it answers every keystroke from local state and writes the URL
 * once typing pauses (replacing the entry, with `onCommit` for side effects such as going back to
 * page 1); when the URL changes from outside (Back, a link) the box follows it.
 */
export function useUrlText(urlValue: string, commit: (value: string) => void, delayMs = 250): [string, (value: string) => void] {
  const [text, setText] = useState(urlValue);
  const debounced = useDebounced(text, delayMs);
  const committed = useRef(urlValue);
  useEffect(() => {
    if (urlValue !== committed.current) {
      committed.current = urlValue;
      setText(urlValue);
    }
  }, [urlValue]);
  useEffect(() => {
    if (debounced !== committed.current) {
      committed.current = debounced;
      commit(debounced);
    }
    // commit is a fresh closure each render; only a new debounced value should write
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [debounced]);
  return [text, setText];
}

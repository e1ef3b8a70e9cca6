'use client';
// One draft edited two ways: a form and YAML. The form sets the document (YAML re-rendered from
// it); the YAML text sets the document whenever it parses (the text is kept as typed).
import { useCallback, useEffect, useRef, useState } from 'react';
import { parse, stringify } from 'yaml';

export function toYaml(doc: unknown): string {
  return doc === null || doc === undefined ? '' : stringify(doc, { lineWidth: 0 });
}

export interface DocDraft<T> {
  draft: T;
  yaml: string;
  yamlError: string | null;
  /** form edits */
  setDraft: (next: T) => void;
  /** YAML edits */
  setYaml: (text: string) => void;
  /** start over from a new base (after load, save, reload or revert) */
  reset: (base: T) => void;
  dirty: boolean;
}

export function useDocDraft<T>(base: T, opts: { fromYaml?: (parsed: unknown) => T; toYamlDoc?: (doc: T) => unknown } = {}): DocDraft<T> {
  const [draft, setDraftState] = useState<T>(base);
  const [yaml, setYamlState] = useState(() => toYaml(opts.toYamlDoc ? opts.toYamlDoc(base) : base));
  const [yamlError, setYamlError] = useState<string | null>(null);
  const [dirty, setDirty] = useState(false);
  const fromYaml = useRef(opts.fromYaml);
  fromYaml.current = opts.fromYaml;
  const render = (doc: T) => toYaml(opts.toYamlDoc ? opts.toYamlDoc(doc) : doc);

  const reset = useCallback((next: T) => {
    setDraftState(next);
    setYamlState(render(next));
    setYamlError(null);
    setDirty(false);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const setDraft = useCallback((next: T) => {
    setDraftState(next);
    setYamlState(render(next));
    setYamlError(null);
    setDirty(true);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const setYaml = useCallback((text: string) => {
    setYamlState(text);
    setDirty(true);
    try {
      const parsed: unknown = text.trim() === '' ? null : parse(text);
      setDraftState(fromYaml.current ? fromYaml.current(parsed) : (parsed as T));
      setYamlError(null);
    } catch (err) {
      setYamlError(err instanceof Error ? err.message.split('\n')[0]! : String(err));
    }
  }, []);

  return { draft, yaml, yamlError, setDraft, setYaml, reset, dirty };
}

/** Resets the draft whenever the server's copy changes revision (load, save, revert). */
export function useResetOnRevision<T>(draft: DocDraft<T>, base: T | undefined, revision: number | undefined) {
  const seen = useRef<number | undefined>(undefined);
  useEffect(() => {
    if (base === undefined || revision === undefined || seen.current === revision) return;
    seen.current = revision;
    draft.reset(base);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [revision, base]);
}

const LEAVE_QUESTION = 'Leave the editor? Your unsaved changes are lost.';

/**
 * While `dirty`, leaving the page asks first: closing or reloading the tab (the browser's own
 * prompt) and following a link inside the app (a confirm before the router moves).
 */
export function useLeaveGuard(dirty: boolean): void {
  useEffect(() => {
    if (!dirty) return;
    const beforeUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
    };
    // capture phase on the document: before the router's own click handler on the link
    const click = (e: MouseEvent) => {
      if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      const link = (e.target as Element | null)?.closest?.('a[href]');
      if (!(link instanceof HTMLAnchorElement) || link.target === '_blank' || link.hasAttribute('download')) return;
      const to = new URL(link.href, window.location.href);
      if (to.origin !== window.location.origin || (to.pathname === window.location.pathname && to.search === window.location.search))
        return;
      if (!window.confirm(LEAVE_QUESTION)) {
        e.preventDefault();
        e.stopPropagation();
      }
    };
    window.addEventListener('beforeunload', beforeUnload);
    document.addEventListener('click', click, true);
    return () => {
      window.removeEventListener('beforeunload', beforeUnload);
      document.removeEventListener('click', click, true);
    };
  }, [dirty]);
}

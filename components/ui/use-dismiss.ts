'use client';
// Closing a popup (a menu, a small dialog, an open <details>) the way people expect: a press
// anywhere outside it or Escape. One hook for the column chooser, the user menu and the simulator
// clock, so they all close the same way.
import { useEffect, useEffectEvent, type RefObject } from 'react';

export type DismissReason = 'outside' | 'escape';

/** While `open`, calls `close` on a pointer press outside `ref`'s element or on Escape. */
export function useDismiss(ref: RefObject<HTMLElement | null>, open: boolean, close: (reason: DismissReason) => void) {
  // the latest `close` without re-subscribing on every render (the clock re-renders every second)
  const onClose = useEffectEvent(close);
  useEffect(() => {
    if (!open) return;
    const onPointer = (e: PointerEvent) => {
      if (e.target instanceof Node && !ref.current?.contains(e.target)) onClose('outside');
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') onClose('escape');
    };
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, [ref, open]);
}

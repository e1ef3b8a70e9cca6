'use client';
// Copy-to-clipboard and download buttons for the path exports.
import { useState } from 'react';

export function CopyButton({ text, label = 'Copy', title }: { text: string; label?: string; title?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
    setTimeout(() => setState('idle'), 1500);
  }
  return (
    <button type="button" className="btn small-btn" onClick={copy} title={title ?? label} aria-label={title ?? label}>
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : label}
    </button>
  );
}

export function DownloadButton({ text, fileName, mime, label }: { text: string; fileName: string; mime: string; label?: string }) {
  function download() {
    const url = URL.createObjectURL(new Blob([text], { type: mime }));
    const a = document.createElement('a');
    a.href = url;
    a.download = fileName;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }
  return (
    <button type="button" className="btn small-btn" onClick={download}>
      {label ?? `Download ${fileName}`}
    </button>
  );
}

/** Only http(s) links are rendered as links; anything else is shown as text. */
export function safeHref(url: string): string | null {
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : null;
  } catch {
    return null;
  }
}

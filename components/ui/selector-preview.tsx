'use client';
// The preview every label-selector editor shows before saving: how many clusters the selector
// matches now and the first of them, or the parser's message (the server parses; the browser
// shows what it said). A blank selector previews nothing: each editor says what blank means.
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc/client';
import { ClusterLink } from './cluster-link';
import { useDebounced } from './use-debounced';

export function SelectorPreview({
  selector,
  blank,
  note,
}: {
  selector: string;
  /** what a blank selector means here */
  blank?: string;
  /** what the match means here (a sector's selector adds only the clusters whose policy names no sector) */
  note?: string;
}) {
  const trpc = useTRPC();
  const text = useDebounced(selector.trim(), 250);
  const preview = useQuery({ ...trpc.clusters.previewSelector.queryOptions({ selector: text }), enabled: text !== '' });
  if (text === '') return blank ? <p className="small muted selector-preview">{blank}</p> : null;
  const data = preview.data;
  if (!data) return <p className="small muted selector-preview">Matching clusters…</p>;
  if (!data.ok)
    return (
      <p className="small selector-preview selector-invalid" role="alert">
        Invalid selector: {data.message}
      </p>
    );
  return (
    <p className="small selector-preview" aria-live="polite">
      <strong>
        Matches {data.count} of {data.total} cluster{data.total === 1 ? '' : 's'}
      </strong>
      {data.count > 0 && ': '}
      {data.names.map((name, i) => (
        <span key={name}>
          {i > 0 && ', '}
          <ClusterLink name={name} />
        </span>
      ))}
      {data.count > data.names.length && <span className="muted"> and {data.count - data.names.length} more</span>}
      {note && <span className="muted"> · {note}</span>}
    </p>
  );
}

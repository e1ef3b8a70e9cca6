'use client';
// Stored update graphs: list, upload (validated on the server; nothing is stored when the file is
// broken) and delete. Uploads go to /paths/upload, which allows graph documents up to 20 MB.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { useTRPC } from '@/components/trpc/client';
import { isoOf } from '@/components/ui/zoned-time';
import { ZonedTime } from '@/components/ui/zoned-time-view';
import { DataTable } from '@/components/ui/data-table';
import { QueryState } from '@/components/ui/query-state';
import { MAX_GRAPH_BYTES } from '@/lib/graph-document-limit';

function readCsrfToken(): string {
  const match = document.cookie.match(/(?:^|; )fleetplan_csrf=([^;]+)/);
  return match?.[1] ? decodeURIComponent(match[1]) : '';
}

async function uploadGraph(input: {
  fileName: string;
  text: string;
  name?: string;
  channel?: string;
  architecture?: string;
  capturedAt?: string;
}) {
  const res = await fetch('/paths/upload', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-csrf-token': readCsrfToken() },
    body: JSON.stringify(input),
  });
  const body = (await res.json().catch(() => null)) as {
    graph?: { name: string; nodeCount: number; edgeCount: number };
    error?: { message: string };
  } | null;
  if (!res.ok || !body?.graph) throw new Error(body?.error?.message ?? `Upload failed (HTTP ${res.status})`);
  return body.graph;
}

export function GraphManager() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const graphs = useQuery(trpc.graphs.list.queryOptions());
  const fileRef = useRef<HTMLInputElement>(null);
  const [form, setForm] = useState({ name: '', channel: '', architecture: '', capturedAt: '' });
  const [message, setMessage] = useState<{ tone: 'ok' | 'bad'; text: string } | null>(null);

  const invalidate = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.graphs.list.queryKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.graphs.channels.queryKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.graphs.solve.queryKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.graphs.view.queryKey() }),
    ]);

  const upload = useMutation({
    mutationFn: async () => {
      const file = fileRef.current?.files?.[0];
      if (!file) throw new Error('Choose a graph file (JSON) first');
      if (file.size > MAX_GRAPH_BYTES)
        throw new Error(`${file.name} is ${(file.size / 1048576).toFixed(1)} MB, over the ${MAX_GRAPH_BYTES / 1048576} MB limit`);
      const text = await file.text();
      return uploadGraph({
        fileName: file.name,
        text,
        name: form.name.trim() || undefined,
        channel: form.channel.trim() || undefined,
        architecture: form.architecture.trim() || undefined,
        capturedAt: form.capturedAt ? new Date(`${form.capturedAt}T00:00:00Z`).toISOString() : undefined,
      });
    },
    onSuccess: async (g) => {
      setMessage({ tone: 'ok', text: `Imported ${g.name}: ${g.nodeCount} releases, ${g.edgeCount} edges.` });
      if (fileRef.current) fileRef.current.value = '';
      await invalidate();
    },
    onError: (err) => setMessage({ tone: 'bad', text: err.message }),
  });

  const updateService = useQuery(trpc.graphs.updateService.queryOptions());
  const refresh = useMutation(
    trpc.graphs.refreshFromUpdateService.mutationOptions({
      onSuccess: async (results) => {
        const failed = results.filter((r) => !r.ok);
        const stored = results.filter((r) => r.ok).map((r) => `${r.detail} (${r.nodes ?? 0} releases)`);
        setMessage({
          tone: failed.length ? 'bad' : 'ok',
          text: [stored.length ? `Refreshed ${stored.join(', ')}.` : '', ...failed.map((r) => `${r.channel}: ${r.detail}`)]
            .filter(Boolean)
            .join(' '),
        });
        await invalidate();
      },
      onError: (err) => setMessage({ tone: 'bad', text: err.message }),
    }),
  );

  const remove = useMutation(
    trpc.graphs.delete.mutationOptions({
      onSuccess: async (r) => {
        setMessage({ tone: 'ok', text: `Deleted ${r.deleted}.` });
        await invalidate();
      },
      onError: (err) => setMessage({ tone: 'bad', text: err.message }),
    }),
  );

  return (
    <div className="paths-stack">
      {updateService.data && (
        <section className="panel" aria-label="Update service">
          <h2>Update service</h2>
          <p className="small muted" style={{ marginTop: 0 }}>
            Channels <span className="mono">{updateService.data.channels.join(', ')}</span> ({updateService.data.arch}) are read from{' '}
            <span className="mono">{updateService.data.url}</span> every {updateService.data.refreshHours} h and stored as{' '}
            <span className="mono">CHANNEL-{updateService.data.arch}</span>.
          </p>
          <button
            type="button"
            className="btn"
            disabled={refresh.isPending}
            onClick={() => {
              setMessage(null);
              refresh.mutate();
            }}
          >
            {refresh.isPending ? 'Refreshing…' : 'Refresh now'}
          </button>
        </section>
      )}
      <section className="panel" aria-label="Upload a graph">
        <h2>Upload an update graph</h2>
        <p className="small muted" style={{ marginTop: 0 }}>
          A Cincinnati v1 document as served by <span className="mono">/api/upgrades_info/v1/graph?channel=…&amp;arch=…</span>, or a union
          of several. It is validated before anything is stored; a graph with the same name is replaced. All stored graphs are merged for
          path questions.
        </p>
        <form
          className="upload-form"
          onSubmit={(e) => {
            e.preventDefault();
            setMessage(null);
            upload.mutate();
          }}
        >
          <label>
            Graph file
            <input ref={fileRef} type="file" accept=".json,application/json" aria-label="Graph file" />
          </label>
          <label>
            Name
            <input
              type="text"
              value={form.name}
              maxLength={120}
              placeholder="file name"
              onChange={(e) => setForm({ ...form, name: e.target.value })}
            />
          </label>
          <label>
            Channel
            <input
              type="text"
              value={form.channel}
              maxLength={64}
              placeholder="e.g. stable-4.14"
              onChange={(e) => setForm({ ...form, channel: e.target.value })}
            />
          </label>
          <label>
            Architecture
            <input
              type="text"
              value={form.architecture}
              maxLength={32}
              placeholder="amd64"
              onChange={(e) => setForm({ ...form, architecture: e.target.value })}
            />
          </label>
          <label>
            Captured (UTC date)
            <input type="date" value={form.capturedAt} onChange={(e) => setForm({ ...form, capturedAt: e.target.value })} />
          </label>
          <button type="submit" className="btn primary" disabled={upload.isPending}>
            {upload.isPending ? 'Uploading…' : 'Upload graph'}
          </button>
        </form>
        {message && (
          <div
            className={`banner ${message.tone === 'ok' ? 'info' : 'bad'}`}
            role={message.tone === 'bad' ? 'alert' : 'status'}
            data-testid="graph-upload-message"
            style={{ marginTop: 10 }}
          >
            {message.text}
          </div>
        )}
      </section>
      <section className="panel flush" aria-label="Stored graphs">
        <div className="toolbar">
          <h2 style={{ margin: 0 }}>Stored graphs</h2>
          <span className="small muted">merged in import order (the first graph&apos;s payload wins for a release in several)</span>
        </div>
        <QueryState
          query={graphs}
          isEmpty={(rows) => rows.length === 0}
          empty={{ title: 'No update graphs stored', hint: 'Upload one above, or run `fleetplan graph import FILE`.' }}
          loadingRows={3}
        >
          {(rows) => (
            <DataTable
              id="stored-graphs"
              label="Stored graphs"
              noun="graphs"
              rows={rows}
              rowKey={(g) => g.id}
              columns={[
                { id: 'name', header: 'Name', required: true, className: 'mono', value: (g) => g.name, cell: (g) => g.name },
                {
                  id: 'channel',
                  header: 'Channel',
                  value: (g) => g.channel,
                  cell: (g) => g.channel ?? <span className="muted">from node metadata</span>,
                },
                { id: 'arch', header: 'Arch', value: (g) => g.architecture, cell: (g) => g.architecture },
                {
                  id: 'captured',
                  header: 'Captured (UTC)',
                  className: 'nowrap',
                  value: (g) => (g.capturedAt ? String(g.capturedAt).slice(0, 10) : null),
                  cell: (g) => (g.capturedAt ? String(g.capturedAt).slice(0, 10) : '–'),
                },
                { id: 'releases', header: 'Releases', value: (g) => g.nodeCount, cell: (g) => g.nodeCount },
                { id: 'edges', header: 'Edges', value: (g) => g.edgeCount, cell: (g) => g.edgeCount },
                {
                  id: 'imported',
                  header: 'Imported',
                  className: 'nowrap',
                  value: (g) => isoOf(g.importedAt),
                  cell: (g) => <ZonedTime iso={g.importedAt} />,
                },
                { id: 'source', header: 'Source', className: 'small graph-source', value: (g) => g.source, cell: (g) => g.source },
                {
                  id: 'actions',
                  header: 'Actions',
                  headerHidden: true,
                  required: true,
                  cell: (g) => (
                    <button
                      type="button"
                      className="btn danger"
                      disabled={remove.isPending}
                      onClick={() => {
                        if (window.confirm(`Delete the stored graph ${g.name}? Paths through it are no longer found.`))
                          remove.mutate({ id: g.id });
                      }}
                    >
                      Delete
                    </button>
                  ),
                },
              ]}
            />
          )}
        </QueryState>
      </section>
    </div>
  );
}

// Stored Cincinnati update graphs (the only code that queries update_graphs).
import { eq, desc, inArray } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import { loadGraphSet } from '@/server/domain/path/load-graph-set';
import type { GraphIndex } from '@/server/domain/path/update-graph-index';
import { affectedRows, tablesOf, type Tables } from './dialect';
import { connectionHeld, connectionReleased, readTogether, withTransaction } from './transaction';

export interface StoredGraphMeta {
  id: number;
  name: string;
  channel: string | null;
  architecture: string;
  capturedAt: Date | null;
  source: string;
  nodeCount: number;
  edgeCount: number;
  importedAt: Date;
}

/** The metadata columns (everything but the document) of the handle's own table. */
const metaColumns = ({ updateGraphs }: Tables) => ({
  id: updateGraphs.id,
  name: updateGraphs.name,
  channel: updateGraphs.channel,
  architecture: updateGraphs.architecture,
  capturedAt: updateGraphs.capturedAt,
  source: updateGraphs.source,
  nodeCount: updateGraphs.nodeCount,
  edgeCount: updateGraphs.edgeCount,
  importedAt: updateGraphs.importedAt,
});

export async function listGraphs(db: Db): Promise<StoredGraphMeta[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  const tables = tablesOf(db);
  const { updateGraphs } = tables;
  return await db.select(metaColumns(tables)).from(updateGraphs).orderBy(desc(updateGraphs.importedAt), updateGraphs.name);
}

export async function getGraphDocuments(db: Db, ids?: number[]): Promise<{ id: number; name: string; document: string }[]> {
  while (connectionHeld(db)) await connectionReleased(db);
  if (ids?.length === 0) return [];
  const { updateGraphs } = tablesOf(db);
  return await db
    .select({ id: updateGraphs.id, name: updateGraphs.name, document: updateGraphs.document })
    .from(updateGraphs)
    .where(ids ? inArray(updateGraphs.id, ids) : undefined)
    .orderBy(updateGraphs.id);
}

/** insert or replace by name; returns the row id */
export async function upsertGraph(db: Db, graph: Omit<StoredGraphMeta, 'id'> & { document: string }): Promise<number> {
  return withTransaction(db, async () => {
    const { updateGraphs } = tablesOf(db);
    await db.delete(updateGraphs).where(eq(updateGraphs.name, graph.name));
    return (await db.insert(updateGraphs).values(graph).returning({ id: updateGraphs.id }))[0]!.id;
  });
}

export async function deleteGraph(db: Db, id: number): Promise<boolean> {
  while (connectionHeld(db)) await connectionReleased(db);
  const { updateGraphs } = tablesOf(db);
  return affectedRows(await db.delete(updateGraphs).where(eq(updateGraphs.id, id))) > 0;
}

export async function findGraphById(db: Db, id: number): Promise<StoredGraphMeta | undefined> {
  while (connectionHeld(db)) await connectionReleased(db);
  const tables = tablesOf(db);
  const { updateGraphs } = tables;
  return (await db.select(metaColumns(tables)).from(updateGraphs).where(eq(updateGraphs.id, id)).limit(1))[0];
}

interface CachedIndex {
  key: string;
  /** the merged index, or why the set does not load (kept too: a broken set stays broken until its key changes) */
  loaded: { ok: true; index: GraphIndex } | { ok: false; source: string; error: string };
}

const globalGraphs = globalThis as unknown as {
  __fleetplanGraphSetCache?: WeakMap<object, CachedIndex>;
  __fleetplanGraphParseCount?: number;
};
const indexCache = (globalGraphs.__fleetplanGraphSetCache ??= new WeakMap());

/** How many times stored graphs were parsed and merged in this process (tests observe caching with it). */
export function graphSetLoadCount(): number {
  return globalGraphs.__fleetplanGraphParseCount ?? 0;
}

export type StoredGraphIndex =
  { ok: true; index: GraphIndex; graphs: StoredGraphMeta[] } | { ok: false; source: string; error: string; graphs: StoredGraphMeta[] };

/**
 * The merged index of every stored graph, or null when none is stored. Parsing and merging a large
 * set costs far more than a query, so the index is built once per set of stored graphs (ids and
 * import times) and kept per database on globalThis: the Paths page and the scheduler's routes
 * share it, and an import or a delete changes the key. A set that does not load is kept as such
 * too, or every tick and page view would parse it all again to fail the same way.
 */
export async function loadStoredGraphIndex(db: Db): Promise<StoredGraphIndex | null> {
  return readTogether(db, async () => {
    const graphs = await listGraphs(db);
    if (graphs.length === 0) return null;
    const key = graphs
      .map((g) => `${g.id}@${g.importedAt.getTime()}`)
      .sort()
      .join(',');
    let hit = indexCache.get(db);
    if (!hit || hit.key !== key) {
      const docs = (await getGraphDocuments(db)).map((d) => ({ source: d.name, text: d.document }));
      globalGraphs.__fleetplanGraphParseCount = graphSetLoadCount() + 1;
      const loaded = loadGraphSet(docs);
      hit = { key, loaded: loaded.ok ? { ok: true, index: loaded.index } : { ok: false, source: loaded.source, error: loaded.error } };
      indexCache.set(db, hit);
    }
    return { ...hit.loaded, graphs };
  });
}

/** Drops the kept index (after an import or a delete: the next load builds it again). */
export async function forgetStoredGraphIndex(db: Db): Promise<void> {
  while (connectionHeld(db)) await connectionReleased(db);
  indexCache.delete(db);
}

// Stored Cincinnati update graphs (the only code that queries update_graphs).
import { eq, desc } from 'drizzle-orm';
import type { Db } from '@/db/open-database';
import { updateGraphs } from '@/db/schema';

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

const META_COLUMNS = {
  id: updateGraphs.id,
  name: updateGraphs.name,
  channel: updateGraphs.channel,
  architecture: updateGraphs.architecture,
  capturedAt: updateGraphs.capturedAt,
  source: updateGraphs.source,
  nodeCount: updateGraphs.nodeCount,
  edgeCount: updateGraphs.edgeCount,
  importedAt: updateGraphs.importedAt,
};

export function listGraphs(db: Db): StoredGraphMeta[] {
  return db.select(META_COLUMNS).from(updateGraphs).orderBy(desc(updateGraphs.importedAt), updateGraphs.name).all();
}

export function getGraphDocuments(db: Db, ids?: number[]): { id: number; name: string; document: string }[] {
  const rows = db
    .select({ id: updateGraphs.id, name: updateGraphs.name, document: updateGraphs.document })
    .from(updateGraphs)
    .orderBy(updateGraphs.id)
    .all();
  return ids ? rows.filter((r) => ids.includes(r.id)) : rows;
}

/** insert or replace by name; returns the row id */
export function upsertGraph(db: Db, graph: Omit<StoredGraphMeta, 'id'> & { document: string }): number {
  return db.transaction((tx) => {
    tx.delete(updateGraphs).where(eq(updateGraphs.name, graph.name)).run();
    return tx.insert(updateGraphs).values(graph).returning({ id: updateGraphs.id }).get().id;
  });
}

export function deleteGraph(db: Db, id: number): boolean {
  return db.delete(updateGraphs).where(eq(updateGraphs.id, id)).run().changes > 0;
}

export function findGraphById(db: Db, id: number): StoredGraphMeta | undefined {
  return db.select(META_COLUMNS).from(updateGraphs).where(eq(updateGraphs.id, id)).get();
}

// What the Paths page must say before anyone trusts an answer from the stored graphs: the
// question names a release the graphs do not hold (a typo, or a graph too old), the chosen channel
// belongs to a minor they hold no release of, or a graph is old. The path contract's own answer is
// unchanged (tests/contracts/path.md); these are the page's warnings beside it. Pure.
import type { GraphIndex } from './update-graph-index';

/** a graph older than this is flagged: releases and edges published since are missing */
export const STALE_GRAPH_DAYS = 30;
const DAY_MS = 86_400_000;

export interface StoredGraphAge {
  name: string;
  capturedAt: Date | null;
}

export function pathWarnings(
  index: GraphIndex,
  question: { from: string; to?: string | null; channel?: string | null },
  graphs: readonly StoredGraphAge[],
  nowMs: number,
): string[] {
  const warnings: string[] = [];
  const held = index.size > 0 ? `${index.versions[index.size - 1]}–${index.versions[0]}` : 'no releases';
  const notHeld = (version: string, role: string) =>
    `${version} is not a release in the stored graphs (they hold ${held}): check the ${role} version, or import a graph that has it.`;
  if (!index.idOf.has(question.from)) warnings.push(notHeld(question.from, 'source'));
  if (question.to && !index.idOf.has(question.to)) warnings.push(notHeld(question.to, 'target'));
  const minor = question.channel ? /-(\d+\.\d+)$/.exec(question.channel)?.[1] : undefined;
  if (question.channel && minor && !index.versions.some((v) => v.startsWith(`${minor}.`)))
    warnings.push(
      `The stored graphs hold no ${minor} release, so ${question.channel} cannot be reached with them: an answer in it ends below ${minor}. Import a graph that has ${minor}.`,
    );
  for (const g of graphs) {
    if (g.capturedAt === null) continue;
    const days = Math.floor((nowMs - g.capturedAt.getTime()) / DAY_MS);
    if (days > STALE_GRAPH_DAYS)
      warnings.push(
        `Graph ${g.name} was captured ${days} days ago (${g.capturedAt.toISOString().slice(0, 10)}): releases and edges published since are missing.`,
      );
  }
  return warnings;
}

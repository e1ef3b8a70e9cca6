// The stored update graphs' minors and channels for the policy lint (none stored, or a broken
// set: undefined, and the lint checks nothing against them; the Paths page reports a broken set),
// and the rest of what the lint depends on beside the input.
import type { Db } from '@/db/open-database';
import { graphCoverage, type GraphCoverage } from '@/server/domain/plan/lint-policies';
import { loadStoredGraphIndex } from '@/server/repositories/update-graph-repository';
import { getEnv } from '@/server/env';

export async function storedGraphCoverage(db: Db): Promise<GraphCoverage | undefined> {
  const stored = await loadStoredGraphIndex(db);
  return stored?.ok ? graphCoverage(stored.index) : undefined;
}

/** The lint's context for an organization: the stored graphs, and its provider (its own, else the instance's). */
export async function lintContextFor(
  db: Db,
  org: { providerKind?: string | null } | null | undefined,
): Promise<{ graphs?: GraphCoverage; provider: string }> {
  return { graphs: await storedGraphCoverage(db), provider: org?.providerKind ?? getEnv().provider.name };
}

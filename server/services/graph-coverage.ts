// The stored update graphs' minors and channels for the policy lint (none stored, or a broken
// set: undefined, and the lint checks nothing against them; the Paths page reports a broken set).
import type { Db } from '@/db/open-database';
import { graphCoverage, type GraphCoverage } from '@/server/domain/plan/lint-policies';
import { loadStoredGraphIndex } from '@/server/repositories/update-graph-repository';

export function storedGraphCoverage(db: Db): GraphCoverage | undefined {
  const stored = loadStoredGraphIndex(db);
  return stored?.ok ? graphCoverage(stored.index) : undefined;
}

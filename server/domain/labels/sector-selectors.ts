/**
 * The sector rule of label selectors (beyond the reference): a sector may carry `selector:`; a
 * managed cluster whose upgrade policy names no sector joins the first sector, in the
 * organization's order, whose selector matches its labels. A sector named in a policy always
 * wins (the reference model assigns sectors there, and an explicit choice must not be overridden
 * by a label); a selector never takes a cluster out of a sector and never puts an unmanaged
 * cluster in one. This is the one home of the rule: plan validation applies it, so the engine,
 * the forecast, why-not and the scheduler all see the same sectors. Pure.
 */
import { matchesLabels, type LabelSelector } from './label-selector';

export type SelectingSector = { name: string; selector?: LabelSelector };

/** The sector whose selector takes a cluster with these labels (its policy naming none), if any. */
export function sectorSelecting(
  sectors: readonly SelectingSector[],
  labels: Readonly<Record<string, string>>,
): SelectingSector | undefined {
  return sectors.find((s) => s.selector !== undefined && matchesLabels(s.selector, labels));
}

export type SectorAssignable = {
  labels?: Record<string, string>;
  upgradePolicy?: { conditions: { sector?: string; sectorSelector?: string } };
};

/**
 * Fills in the sector of each managed cluster without one from the sectors' selectors (in
 * place: validation owns the objects). `sectorSelector` records the selector that chose it, for
 * the explanation.
 */
export function assignSectorsBySelector(sectors: readonly SelectingSector[], clusters: readonly SectorAssignable[]): void {
  if (!sectors.some((s) => s.selector !== undefined)) return;
  for (const cluster of clusters) {
    const conditions = cluster.upgradePolicy?.conditions;
    if (!conditions || conditions.sector !== undefined) continue;
    const chosen = sectorSelecting(sectors, cluster.labels ?? {});
    if (chosen?.selector) {
      conditions.sector = chosen.name;
      conditions.sectorSelector = chosen.selector.text;
    }
  }
}

/**
 * Each managed cluster's sector as the engine sees it, by cluster name: of clusters that went
 * through plan validation (which applied the selectors), so views count what the engine counts
 * instead of reading the policy's `sector` alone.
 */
export function sectorMembership(
  clusters: readonly { name: string; upgradePolicy?: { conditions: { sector?: string } } }[],
): Record<string, string> {
  const members: Record<string, string> = {};
  for (const c of clusters) {
    const sector = c.upgradePolicy?.conditions.sector;
    if (sector !== undefined) members[c.name] = sector;
  }
  return members;
}

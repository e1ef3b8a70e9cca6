/**
 * "Why not?" for one cluster: replays the engine up to that cluster's turn (so mutexes taken by
 * clusters earlier in the order count), then lists every rule with pass/fail and its numbers,
 * for the cluster and for every candidate version. The decision is the engine's own.
 */
import { PlanRun, type ManagedCluster } from './decide-upgrades';
import { formatInstant, parseInstant } from './time';
import type { CandidateExplanation, ClusterExplanation, PlanInput, RuleCheck } from './types';

function clusterChecks(run: PlanRun, c: ManagedCluster): RuleCheck[] {
  const checks: RuleCheck[] = [];
  const current = c.currentUpgrade;
  if (current) {
    const blockedBy = run.isBlocked(c, current.version);
    const future = (parseInstant(current.nextRun) ?? 0) > run.nowMs;
    checks.push({
      rule: 'pending',
      pass: false,
      message: `upgrade to ${current.version} ${current.state} (nextRun ${current.nextRun})${
        blockedBy !== undefined
          ? `; its version is blocked by ${blockedBy}${current.state === 'scheduled' && future ? ', so it is cancelled' : ''}`
          : ''
      }`,
      details: { version: current.version, nextRun: current.nextRun, state: current.state, blockedBy: blockedBy ?? null },
    });
  } else {
    checks.push({ rule: 'pending', pass: true, message: 'no upgrade scheduled or running' });
  }
  const { schedule } = c.upgradePolicy;
  checks.push({
    rule: 'suspend',
    pass: !schedule.suspend,
    message: schedule.suspend ? 'schedule suspended' : 'schedule active',
  });
  const inWindow = run.nextRunInWindow(schedule);
  const next = run.nextRunAfterLead(schedule);
  checks.push({
    rule: 'schedule',
    pass: inWindow !== null,
    message: inWindow !== null ? `next run ${formatInstant(inWindow)} is within 2h` : run.describeOutsideWindow(schedule),
    details: {
      cron: schedule.cron,
      location: schedule.location,
      isoWeek: schedule.isoWeek ?? null,
      nextRun: next === null ? null : formatInstant(next),
      hoursAway: next === null ? null : Math.round(((next - run.nowMs) / 3_600_000) * 100) / 100,
    },
  });
  const mutex = run.checkMutexes(c);
  checks.push({
    rule: 'mutex',
    pass: mutex.pass,
    message: mutex.pass
      ? c.upgradePolicy.conditions.mutexes.length
        ? `mutexes ${c.upgradePolicy.conditions.mutexes.join(', ')} available`
        : 'no mutexes'
      : mutex.message,
    details: { mutexes: c.upgradePolicy.conditions.mutexes.join(', ') },
  });
  return checks;
}

function candidateExplanations(run: PlanRun, c: ManagedCluster, chosen: string | undefined, newer: string[]): CandidateExplanation[] {
  return newer.map((version) => {
    const check = run.checkVersion(c, version);
    const checks: RuleCheck[] = [
      {
        rule: 'blocked',
        pass: check.blockedBy === undefined,
        message: check.blockedBy === undefined ? 'not blocked' : `blocked by ${check.blockedBy}`,
        details: { pattern: check.blockedBy ?? null },
      },
      {
        rule: 'sector',
        pass: check.sector.pass,
        message: check.sector.message,
        details: check.sector.required
          ? { sector: check.sector.required.sector, cluster: check.sector.required.cluster, runs: check.sector.required.version }
          : {},
      },
      ...check.soak.perWorkload.map<RuleCheck>((p) => ({
        rule: 'soak',
        pass: p.pass,
        message:
          p.required === null
            ? `workload ${p.workload}: no soak condition (soaked ${p.soaked.toFixed(2)} days)`
            : `workload ${p.workload}: soaked ${p.soaked.toFixed(2)} of ${p.required} days`,
        details: { workload: p.workload, soaked: p.soaked, required: p.required },
      })),
    ];
    return { version, chosen: version === chosen, checks };
  });
}

/**
 * Explains the engine's decision for `clusterName` with every rule it applies. Unknown or
 * unmanaged clusters get `managed: false` and no decision.
 */
export function explainCluster(input: PlanInput, clusterName: string): ClusterExplanation {
  const run = new PlanRun(input);
  const index = run.order.findIndex((c) => c.name === clusterName);
  const target = run.order[index];
  if (!target) {
    const cluster = input.clusters.find((c) => c.name === clusterName);
    const { newer, ignored } = cluster ? run.candidates(cluster) : { newer: [], ignored: [] };
    return {
      cluster: clusterName,
      managed: false,
      checks: [{ rule: 'pending', pass: false, message: cluster ? 'cluster has no upgrade policy' : 'unknown cluster' }],
      candidates: newer.map((version) => ({ version, chosen: false, checks: [] })),
      ignoredVersions: ignored,
    };
  }
  for (let i = 0; i < index; i++) run.decide(run.order[i] as ManagedCluster);
  const checks = clusterChecks(run, target);
  const { newer, ignored } = run.candidates(target);
  checks.push({
    rule: 'available',
    pass: newer.length > 0,
    message: newer.length ? `${newer.length} available upgrade(s) newer than ${target.version}` : 'no available upgrades',
  });
  const decision = run.decide(target);
  const chosen = decision.action === 'upgrade' ? decision.version : undefined;
  return {
    cluster: clusterName,
    managed: true,
    decision,
    order: index,
    checks,
    candidates: candidateExplanations(run, target, chosen, newer),
    ignoredVersions: ignored,
  };
}

/**
 * The engine's rules as checks with pass/fail and their numbers, read from a PlanRun at one
 * cluster's turn (so mutexes taken by clusters earlier in the order count). The decision itself
 * is always PlanRun.decide's; these only show what it looked at.
 */
import type { ManagedCluster, PlanRun, VersionCheck } from '@/server/domain/plan/decide-upgrades';
import { formatInstant, HOUR_MS, parseInstant } from '@/server/domain/plan/time';
import type { CandidateExplanation, RuleCheck } from '@/server/domain/plan/types';
import { describeNotBefore } from '@/server/domain/plan/sector-gates';
import { describeRoute, describeRoutePath } from '@/server/domain/plan/route-following';

/** Cluster-level rules before the cluster's decision: pending upgrade, suspend, window, mutexes, available. */
export function clusterRuleChecks(run: PlanRun, c: ManagedCluster, newer: readonly string[]): RuleCheck[] {
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
  // the sector's notBefore comes before the window, as in the engine
  const sectorName = c.upgradePolicy.conditions.sector;
  const notBefore = sectorName === undefined ? undefined : run.notBeforeOf(sectorName);
  if (notBefore) {
    const holding = run.notBeforeHolding(c, inWindow ?? run.nowMs);
    checks.push({
      rule: 'notBefore',
      pass: holding === undefined,
      message: holding
        ? `sector ${sectorName} starts ${describeNotBefore(holding)}`
        : `sector ${sectorName}'s notBefore (${formatInstant(notBefore.at)}) does not hold this start`,
      details: { notBefore: notBefore.raw, earliest: formatInstant(notBefore.at) },
    });
  }
  checks.push({
    rule: 'schedule',
    pass: inWindow !== null,
    message: inWindow !== null ? `next run ${formatInstant(inWindow)} is within 2h` : run.describeOutsideWindow(schedule),
    details: {
      cron: schedule.cron,
      location: schedule.location,
      isoWeek: schedule.isoWeek ?? null,
      nextRun: next === null ? null : formatInstant(next),
      hoursAway: next === null ? null : Math.round(((next - run.nowMs) / HOUR_MS) * 100) / 100,
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
  checks.push({
    rule: 'available',
    pass: newer.length > 0,
    message: newer.length ? `${newer.length} available upgrade(s) newer than ${c.version}` : 'no available upgrades',
  });
  const route = run.routeOf(c);
  if (route) {
    const offRoute = run.candidates(c).offRoute ?? [];
    const off = offRoute.length ? `; off the route, not taken: ${offRoute.join(', ')}` : '';
    checks.push(
      route.kind === 'route'
        ? {
            rule: 'route',
            // every route passing a blocked release: the cluster waits on the best one
            pass: route.blockedHop === undefined,
            message: `${describeRoute(route)}${off}`,
            details: {
              route: describeRoutePath(route.path),
              target: route.target,
              nextHop: route.nextHop,
              channel: route.channel,
              ...(route.blockedHop ? { blockedHop: route.blockedHop.version, blockedBy: route.blockedHop.by } : {}),
            },
          }
        : {
            rule: 'route',
            pass: false,
            message: `no route to the target ${route.target}: ${route.message}`,
            details: { target: route.target },
          },
    );
  }
  return checks;
}

/** Soak of one candidate as one number pair: the least-soaked workload against the threshold. */
export type CandidateSoak = {
  /** lowest accumulated soak over the cluster's workloads */
  soakedDays: number;
  /** the policy's soakDays; null = no soak condition */
  requiredDays: number | null;
  /** days still missing (0 when soaked or without a soak condition) */
  remainingDays: number;
};

export type CandidateEvaluation = CandidateExplanation & {
  /** the pattern blocking it, if any */
  blockedBy: string | null;
  /** null for an unmanaged cluster (no policy, no rules) */
  soak: CandidateSoak | null;
};

/** The least-soaked workload of one version check against its threshold. */
export function candidateSoak(check: VersionCheck): CandidateSoak {
  const per = check.soak.perWorkload;
  const soakedDays = per.length ? Math.min(...per.map((p) => p.soaked)) : 0;
  const requiredDays = per[0]?.required ?? null;
  return { soakedDays, requiredDays, remainingDays: requiredDays === null ? 0 : Math.max(requiredDays - soakedDays, 0) };
}

/** Every candidate version (highest first) against the version rules: blocked, sector, soak per workload. */
export function candidateRuleChecks(
  run: PlanRun,
  c: ManagedCluster,
  chosen: string | undefined,
  newer: readonly string[],
): CandidateEvaluation[] {
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
        rule: 'bound',
        pass: check.exceeds === undefined,
        message: check.exceeds === undefined ? 'within the targets and caps' : `above ${run.describeBound(c, check.exceeds)}`,
        details: check.exceeds
          ? { bound: check.exceeds.kind, value: check.exceeds.bound.raw, scope: check.exceeds.scope }
          : { bounds: run.boundsOf(c).length },
      },
      {
        rule: 'sector',
        pass: check.sector.pass,
        // a sector its selector chose says so: why-not explains membership the policy does not show
        message: c.upgradePolicy.conditions.sectorSelector
          ? `${check.sector.message} (in sector ${c.upgradePolicy.conditions.sector} by its label selector ${c.upgradePolicy.conditions.sectorSelector}: the policy names no sector)`
          : check.sector.message,
        details: {
          ...(check.sector.required
            ? { sector: check.sector.required.sector, cluster: check.sector.required.cluster, runs: check.sector.required.version }
            : {}),
          ...(c.upgradePolicy.conditions.sectorSelector ? { selectedBy: c.upgradePolicy.conditions.sectorSelector } : {}),
        },
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
    // only where a sector declares a gate (a fleet without gates explains as before)
    if (check.awaits) {
      checks.push({
        rule: 'approval',
        pass: false,
        message: run.describeApprovalWait(c, check.awaits),
        details: { gate: check.awaits.kind, sector: check.awaits.sector, version: version },
      });
    } else if (run.hasApprovalGates(c)) {
      checks.push({ rule: 'approval', pass: true, message: `${version} approved for every gate it passes`, details: {} });
    }
    // only where the cluster's sector has canaries (a fleet without them explains as before)
    const sectorName = c.upgradePolicy.conditions.sector;
    const canaries = sectorName === undefined ? undefined : run.canariesOf(sectorName);
    if (check.canary) {
      const hold = check.canary;
      checks.push({
        rule: 'canary',
        pass: false,
        message: run.describeCanaryHold(hold),
        details:
          hold.kind === 'failed'
            ? { outcome: 'failed', canary: hold.canary, attempt: hold.attempt ?? null, sector: hold.sector }
            : {
                outcome: 'waiting',
                sector: hold.sector,
                soakHours: hold.soakHours,
                pending: hold.canaries.filter((p) => !p.done).length,
                earliest: hold.readyAt === null ? null : formatInstant(hold.readyAt),
              },
      });
    } else if (canaries) {
      checks.push({
        rule: 'canary',
        pass: true,
        message: run.isCanary(c)
          ? `a canary of sector ${sectorName}: it goes first`
          : `the canaries of sector ${sectorName} (${canaries.canaries.map((k) => k.name).join(', ')}) completed and soaked ${version}, or cannot take it`,
        details: { canaries: canaries.canaries.length, canary: run.isCanary(c) },
      });
    }
    // only where the cluster holds it (a provider version gate, an operator, a removed API)
    if (check.held) checks.push({ rule: 'hold', pass: false, message: check.held.message, details: { reason: check.held.reason } });
    return { version, chosen: version === chosen, checks, blockedBy: check.blockedBy ?? null, soak: candidateSoak(check) };
  });
}

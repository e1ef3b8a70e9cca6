import { parseVersion } from '../version/version';

/** Planning assumptions of the duration model (minutes). Not measurements: tune per fleet. */
export const DURATION_MODEL = {
  /** Control plane of a minor (4.y → 4.y+1) hop: operators + 3 master reboots. */
  MINOR_HOP_MINUTES: 75,
  /** Control plane of a z-stream (within a minor) hop. */
  PATCH_HOP_MINUTES: 50,
  /** DaemonSets rolled one node at a time (sdn/ovn, multus): ~80 min for 250 nodes per the EUS enhancement. */
  DAEMONSET_MINUTES_PER_NODE: 0.32,
  /** Each control-plane node beyond 3 adds a drain + reboot. */
  EXTRA_MASTER_MINUTES: 10,
  /** Drain, reboot and rejoin of one worker. */
  WORKER_NODE_MINUTES: 12,
} as const;

export interface DurationInput {
  /** The path, current version first. */
  readonly path: readonly string[];
  readonly controlPlaneNodes?: number;
  readonly workerNodes: number;
  /** Worker pools paused during the path (EUS-to-EUS): workers roll out once, at the end. */
  readonly workersPaused: boolean;
  /** Workers updated at once (MachineConfigPool maxUnavailable); default 1. */
  readonly maxUnavailable?: number;
}

export interface HopEstimate {
  readonly from: string;
  readonly to: string;
  readonly kind: 'minor' | 'patch';
  readonly minutes: number;
}

export interface DurationEstimate {
  readonly controlPlaneMinutes: number;
  readonly workerMinutes: number;
  readonly totalMinutes: number;
  readonly hops: readonly HopEstimate[];
  readonly workerRollouts: number;
  /** The model in words, for the page. */
  readonly model: string;
}

/**
 * Estimates the update duration of a path, scaled by node count (EUS enhancement goal: "guidance
 * on expected upgrade duration scaled by node count"). Control plane per hop = base (minor or
 * z-stream) + per-node DaemonSet rollout × all nodes + extra masters; workers = rollouts ×
 * ceil(workers / maxUnavailable) × minutes per worker, one rollout when paused, else one per hop.
 * Workload rescheduling (PDBs, slow drains) is excluded and can dominate.
 */
export function estimateUpdateDuration(input: DurationInput): DurationEstimate {
  const M = DURATION_MODEL;
  const masters = Math.max(1, Math.floor(input.controlPlaneNodes ?? 3));
  const workers = Math.max(0, Math.floor(input.workerNodes));
  const maxUnavailable = Math.max(1, Math.floor(input.maxUnavailable ?? 1));
  const nodes = masters + workers;
  const hops: HopEstimate[] = [];
  for (let i = 0; i + 1 < input.path.length; i++) {
    const a = parseVersion(input.path[i] as string);
    const b = parseVersion(input.path[i + 1] as string);
    const kind = a && b && a.major === b.major && a.minor === b.minor ? 'patch' : 'minor';
    const base = kind === 'minor' ? M.MINOR_HOP_MINUTES : M.PATCH_HOP_MINUTES;
    const minutes = Math.round(base + M.DAEMONSET_MINUTES_PER_NODE * nodes + M.EXTRA_MASTER_MINUTES * Math.max(0, masters - 3));
    hops.push({ from: input.path[i] as string, to: input.path[i + 1] as string, kind, minutes });
  }
  const controlPlaneMinutes = hops.reduce((s, h) => s + h.minutes, 0);
  const workerRollouts = hops.length === 0 || workers === 0 ? 0 : input.workersPaused ? 1 : hops.length;
  const workerMinutes = workerRollouts * Math.ceil(workers / maxUnavailable) * M.WORKER_NODE_MINUTES;
  const model =
    `Per hop: ${M.MINOR_HOP_MINUTES} min for a minor update or ${M.PATCH_HOP_MINUTES} min within a minor, ` +
    `+ ${M.DAEMONSET_MINUTES_PER_NODE} min per node for DaemonSet rollouts (${nodes} nodes)` +
    (masters > 3 ? ` + ${M.EXTRA_MASTER_MINUTES} min per control-plane node beyond 3` : '') +
    `. Workers: ${workerRollouts} rollout(s) × ceil(${workers} / ${maxUnavailable}) × ${M.WORKER_NODE_MINUTES} min` +
    (input.workersPaused ? ' (pools paused: one rollout at the end)' : ' (one rollout per hop)') +
    '. Planning assumptions, not measurements; workload rescheduling and PodDisruptionBudgets are excluded.';
  return { controlPlaneMinutes, workerMinutes, totalMinutes: controlPlaneMinutes + workerMinutes, hops, workerRollouts, model };
}

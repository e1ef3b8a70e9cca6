import { adminGatesForHop } from './admin-gates';
import { maxKubeletSkew } from './version-skew';
import { parseVersion } from '../version/version';
import type { HopRisks } from './types';

export type RunbookStepKind = 'preflight' | 'channel' | 'pause' | 'admin-ack' | 'update' | 'catch-up' | 'unpause' | 'verify';

export interface RunbookStep {
  readonly kind: RunbookStepKind;
  readonly title: string;
  /** Why / what to look for; plain text. */
  readonly detail: string;
  /** Copyable `oc` commands, in order. */
  readonly commands: readonly string[];
}

export interface RunbookInput {
  /** The solved path, current version first. */
  readonly path: readonly string[];
  /** Channel to switch to before the first hop (the target channel), if any. */
  readonly channel?: string | null;
  /** Risks of conditional hops (the answer's `risks`): those hops need `--allow-not-recommended`. */
  readonly risks?: readonly HopRisks[];
  /** Non-master MachineConfigPools to pause; default `['worker']`. */
  readonly pools?: readonly string[];
}

export interface Runbook {
  readonly steps: readonly RunbookStep[];
  /** Whether worker pools are paused (the path crosses a minor). */
  readonly pausesWorkers: boolean;
  readonly warnings: readonly string[];
  /** The runbook as Markdown-ish text with fenced commands. */
  readonly text: string;
}

const WAIT_CLUSTERVERSION = `oc wait clusterversion/version --for=condition=Progressing=False --timeout=4h`;
const pausePatch = (pool: string, paused: boolean) => `oc patch mcp/${pool} --type merge -p '{"spec":{"paused":${paused}}}'`;
const waitPool = (pool: string) => `oc wait mcp/${pool} --for=condition=Updated=True --timeout=6h`;

function shellQuote(s: string): string {
  return /^[A-Za-z0-9._\-+=/:@]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * A step-by-step "control plane only" (EUS-to-EUS) update procedure for a solved path, as copyable
 * `oc` commands: preflight checks, switch channel, pause the worker pools (only when the path
 * crosses a minor; the master pool cannot be paused), one `oc adm upgrade --to=` per hop (with
 * `--allow-not-recommended` for conditional hops), admin-gate acknowledgements before the minors
 * that need them, and unpausing at the end. When a hop would put the control plane further ahead of
 * the paused workers than the kubelet skew allows (2 minors on 4.even, 1 on 4.odd), a catch-up step
 * (unpause, wait, pause again) is inserted before it.
 * @see https://docs.openshift.com/container-platform/4.12/updating/updating-eus-to-eus-upgrade.html
 */
export function buildRunbook(input: RunbookInput): Runbook {
  const { path } = input;
  const pools = input.pools && input.pools.length ? input.pools : ['worker'];
  const conditional = new Map((input.risks ?? []).map((h) => [`${h.from}\u0000${h.to}`, h]));
  const parsed = path.map((v) => parseVersion(v));
  const warnings: string[] = [];
  const steps: RunbookStep[] = [];
  const first = parsed[0];
  const lastVersion = path[path.length - 1] ?? '';
  const crossesMinor = parsed.some((p) => p && first && (p.major !== first.major || p.minor !== first.minor));

  steps.push({
    kind: 'preflight',
    title: 'Check the cluster is healthy and every pool is updated',
    detail:
      `Current version should be ${path[0] ?? '?'}; every MachineConfigPool UPDATED=True, none DEGRADED. ` +
      `Update OLM operators to versions compatible with ${lastVersion} first, and use an oc client at the target version.`,
    commands: ['oc get clusterversion', 'oc get mcp', 'oc adm upgrade', 'oc get co'],
  });
  if (path.length < 2) {
    warnings.push('The path has no hops: the cluster is already at the target.');
  }
  if (input.channel) {
    steps.push({
      kind: 'channel',
      title: `Switch the cluster to channel ${input.channel}`,
      detail:
        'If oc reports the channel is not one of the available channels (EUS channels lag GA by 45–90 days), add --allow-explicit-channel only after checking the release is in it.',
      commands: [`oc adm upgrade channel ${shellQuote(input.channel)}`],
    });
  }
  if (crossesMinor) {
    steps.push({
      kind: 'pause',
      title: `Pause the worker MachineConfigPools (${pools.join(', ')})`,
      detail:
        'Workers then reboot once, at the end. The master pool cannot be paused. List other custom pools with `oc get mcp` and pause them too.',
      commands: pools.map((p) => pausePatch(p, true)),
    });
  }

  let workers = first;
  for (let i = 0; i + 1 < path.length; i++) {
    const from = path[i] as string;
    const to = path[i + 1] as string;
    const target = parsed[i + 1];
    if (crossesMinor && target && workers && target.major === workers.major && target.minor - workers.minor > maxKubeletSkew(target)) {
      steps.push({
        kind: 'catch-up',
        title: `Let the workers catch up to ${from} before going to ${to}`,
        detail: `With workers at ${workers.major}.${workers.minor}, ${target.major}.${target.minor} would exceed the kubelet skew it allows (${maxKubeletSkew(target)} minor(s)).`,
        commands: [...pools.map((p) => pausePatch(p, false)), ...pools.map(waitPool), ...pools.map((p) => pausePatch(p, true))],
      });
      workers = parsed[i] ?? workers;
    }
    for (const gate of adminGatesForHop(from, to)) {
      steps.push({
        kind: 'admin-ack',
        title: `Acknowledge admin gate ${gate}`,
        detail: `Updating to ${target ? `${target.major}.${target.minor}` : to} removes Kubernetes APIs: check nothing still uses them (APIRequestCount), then acknowledge. Gate derived by minor; the cluster's admin-gates ConfigMap is authoritative.`,
        commands: [
          'oc -n openshift-config-managed get configmap admin-gates -o yaml',
          `oc -n openshift-config patch cm admin-acks --type=merge --patch '{"data":{"${gate}":"true"}}'`,
        ],
      });
    }
    const hop = conditional.get(`${from}\u0000${to}`);
    const flags = hop ? ' --allow-not-recommended' : '';
    steps.push({
      kind: 'update',
      title: `Update ${from} → ${to}${hop ? ' (conditional)' : ''}`,
      detail: hop
        ? `Not recommended for clusters exposed to: ${hop.risks.map((r) => `${r.name} (${r.url})`).join('; ')}. Confirm none applies.`
        : 'Wait until the update completes before the next step.',
      commands: [`oc adm upgrade --to=${to}${flags}`, WAIT_CLUSTERVERSION, 'oc get clusterversion'],
    });
  }

  if (crossesMinor) {
    steps.push({
      kind: 'unpause',
      title: `Unpause the worker MachineConfigPools (${pools.join(', ')})`,
      detail: `Workers update (and reboot once) straight to ${lastVersion}. Finish within 60 days of starting, because of certificate rotation.`,
      commands: [...pools.map((p) => pausePatch(p, false)), ...pools.map(waitPool)],
    });
  }
  steps.push({
    kind: 'verify',
    title: `Verify the cluster runs ${lastVersion}`,
    detail: 'ClusterVersion history shows Completed; all cluster operators Available and not Degraded.',
    commands: ['oc get clusterversion', 'oc get co', 'oc get mcp'],
  });

  const text = steps.map((s, i) => [`${i + 1}. ${s.title}`, `   ${s.detail}`, '```sh', ...s.commands, '```'].join('\n')).join('\n\n');
  return { steps, pausesWorkers: crossesMinor, warnings, text: `${text}\n` };
}

import { defaultTargetChannel, parseChannelName, sortChannelsFor } from '../version/channel-names';
import type { GraphIndex } from './update-graph-index';
import type { PathFound } from './types';
import { parseVersion } from '../version/version';

export interface ImageSetChannelEntry {
  readonly name: string;
  readonly minVersion: string;
  readonly maxVersion: string;
  readonly shortestPath?: true;
}

export interface ImageSetResult {
  /** `pins`: one entry per path release; `fallback`: one shortestPath entry source → target. */
  readonly mode: 'pins' | 'fallback';
  readonly entries: readonly ImageSetChannelEntry[];
  /** The ImageSetConfiguration document (YAML, ends with a newline). */
  readonly yaml: string;
  /** For people (stderr): non-empty in fallback mode. */
  readonly warnings: readonly string[];
}

export interface RenderImageSetOptions {
  /** The target channel (`--channel`); default: derived from the target's channels. */
  readonly channel?: string | null;
  /** `mirror.platform.architectures`, when known (e.g. `['amd64']`). */
  readonly architectures?: readonly string[];
}

/**
 * Preference of channels for one release: stable of the release's minor or the next minor, then
 * eus/fast of those, then the rest (eus < stable < fast < candidate, nearest minor first). The
 * target release puts the target channel first.
 */
function preferenceFor(version: string, channels: readonly string[], targetChannel: string | null): string[] {
  const v = parseVersion(version);
  const first: string[] = targetChannel ? [targetChannel] : [];
  if (v) {
    const y = `${v.major}.${v.minor}`;
    const y1 = `${v.major}.${v.minor + 1}`;
    first.push(`stable-${y}`, `stable-${y1}`, `eus-${y}`, `fast-${y}`, `fast-${y1}`);
  }
  const set = new Set(channels);
  const ordered = first.filter((c) => set.has(c));
  for (const c of sortChannelsFor(channels, version)) if (!ordered.includes(c)) ordered.push(c);
  return ordered;
}

/**
 * Assigns each release a distinct channel that contains it: each release (the target first) takes
 * its most preferred free channel; only when none is free does it re-route earlier releases along
 * an augmenting path (bipartite matching). Returns null when no such assignment exists.
 */
function assignChannels(releases: readonly string[], prefs: readonly (readonly string[])[]): string[] | null {
  const owner = new Map<string, number>();
  const augment = (r: number, seen: Set<string>): boolean => {
    for (const c of prefs[r] ?? []) {
      if (owner.has(c) || seen.has(c)) continue;
      owner.set(c, r);
      return true;
    }
    for (const c of prefs[r] ?? []) {
      if (seen.has(c)) continue;
      seen.add(c);
      const o = owner.get(c);
      if (o === undefined || augment(o, seen)) {
        owner.set(c, r);
        return true;
      }
    }
    return false;
  };
  const last = releases.length - 1;
  const order = [last, ...releases.map((_, i) => i).filter((i) => i !== last)];
  for (const r of order) if (!augment(r, new Set())) return null;
  const out = new Array<string>(releases.length);
  for (const [c, r] of owner) out[r] = c;
  return out;
}

function quote(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

function toYaml(
  entries: readonly ImageSetChannelEntry[],
  graph: boolean,
  architectures: readonly string[] | undefined,
  comment: string[],
): string {
  const lines = comment.map((c) => `# ${c}`);
  lines.push('kind: ImageSetConfiguration', 'apiVersion: mirror.openshift.io/v2alpha1', 'mirror:', '  platform:');
  lines.push(`    graph: ${graph ? 'true' : 'false'}`);
  if (architectures && architectures.length) {
    lines.push('    architectures:');
    for (const a of architectures) lines.push(`    - ${quote(a)}`);
  }
  lines.push('    channels:');
  for (const e of entries) {
    lines.push(
      `    - name: ${quote(e.name)}`,
      '      type: ocp',
      `      minVersion: ${quote(e.minVersion)}`,
      `      maxVersion: ${quote(e.maxVersion)}`,
    );
    if (e.shortestPath) lines.push('      shortestPath: true');
  }
  return `${lines.join('\n')}\n`;
}

/**
 * An oc-mirror `ImageSetConfiguration` (v2alpha1) mirroring exactly the path's releases
 * (contracts/path.md, `--format imageset`): one channel entry per release with
 * minVersion = maxVersion = that release, each under a distinct channel that contains it, and
 * `graph: true`. When that assignment is impossible (e.g. a graph without channel metadata, or two
 * releases only in one channel), one entry named after the target channel with
 * minVersion = source, maxVersion = target, `shortestPath: true`, plus a warning.
 * @see https://github.com/openshift/oc-mirror (v2alpha1 `ImageSetConfiguration`)
 */
export function renderImageSet(index: GraphIndex, answer: PathFound, options: RenderImageSetOptions = {}): ImageSetResult {
  const path = answer.path;
  const target = answer.to;
  const given = options.channel ?? answer.channel;
  // A graph without any channel metadata is taken to be the given channel's already.
  const assumed = !index.hasChannelMetadata && given ? [given] : [];
  const channelsOf = (v: string): readonly string[] => {
    const id = index.idOf.get(v);
    return id === undefined || !index.hasChannelMetadata ? assumed : (index.channels[id] ?? []);
  };
  const targetChannel = given ?? defaultTargetChannel(target, channelsOf(target));
  const prefs = path.map((v, i) => preferenceFor(v, channelsOf(v), i === path.length - 1 ? targetChannel : null));
  const assigned = assignChannels(path, prefs);
  const summary = `fleetplan path ${answer.from} -> ${target}: ${path.join(' -> ')}`;

  if (assigned) {
    const entries = path.map((v, i) => ({ name: assigned[i] as string, minVersion: v, maxVersion: v }));
    const notes = [summary];
    if (entries.length > 1) {
      notes.push('Every release is pinned; oc-mirror may add a few releases of its own cross-channel path.');
    }
    return { mode: 'pins', entries, yaml: toYaml(entries, true, options.architectures, notes), warnings: [] };
  }

  const entries: ImageSetChannelEntry[] = [{ name: targetChannel, minVersion: answer.from, maxVersion: target, shortestPath: true }];
  const unpinned = path.filter((v) => channelsOf(v).length === 0);
  const why = !index.hasChannelMetadata
    ? 'the graph has no channel metadata'
    : unpinned.length
      ? `no channel metadata for ${unpinned.join(', ')}`
      : `${path.length} releases but not as many distinct channels containing them`;
  const warnings = [
    `warning: cannot pin each path release under a distinct channel that contains it (${why}); ` +
      `writing one ${targetChannel} entry ${answer.from} -> ${target} with shortestPath: true. ` +
      'oc-mirror computes that path itself over unconditional edges only: check that it mirrors ' +
      `${path.join(', ')}.`,
  ];
  if (answer.risks.length) {
    warnings.push('warning: the path takes conditional edges, which oc-mirror ignores; its shortestPath will differ.');
  }
  if (!parseChannelName(targetChannel)) warnings.push(`warning: ${targetChannel} is not a channel name oc-mirror knows.`);
  return { mode: 'fallback', entries, yaml: toYaml(entries, true, options.architectures, [summary]), warnings };
}

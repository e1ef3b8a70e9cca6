import type { PathRelease } from './types';

export type MirrorListFormat = 'text' | 'json';

/**
 * The releases a mirror must hold for a path (source included), in path order.
 * `text`: one `VERSION PAYLOAD` line each; `json`: `{"releases": [{version, payload}]}`.
 */
export function renderMirrorList(releases: readonly PathRelease[], format: MirrorListFormat): string {
  if (format === 'json') return `${JSON.stringify({ releases }, null, 2)}\n`;
  return releases.map((r) => `${r.version} ${r.payload}\n`).join('');
}

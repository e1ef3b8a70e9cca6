/**
 * Approval gates and the start gate of a sector (beyond the reference upgrade service, issue 14):
 *
 * - `approval.before`: the rollout of a version into the sector waits (AWAITING_APPROVAL) until
 *   an approval of (sector, version, before) exists;
 * - `approval.after`: the sectors that depend on this one, directly or through others, wait for a
 *   version until the sector's completion of it is approved: (sector, version, after);
 * - `notBefore`: no upgrade of the sector's clusters starts before this instant (NOT_BEFORE), e.g.
 *   "prod does not start before Sunday 20:00 in Zurich": `2026-11-29T20:00 Europe/Zurich`, or an
 *   instant with its offset, `2026-11-29T19:00:00Z`. Once passed it holds nothing.
 *
 * Approvals are the engine's input (the stored, unrevoked ones), so the rule stays pure. A gate is
 * a wait that clears (an operator approves, the moment comes), never "will never upgrade".
 */
import { isKnownTimeZone, localToInstants } from './cron-schedule';
import { formatInstant, parseInstant } from './time';
import type { Organization, Sector } from './types';

export const APPROVAL_KINDS = ['before', 'after'] as const;
export type ApprovalKind = (typeof APPROVAL_KINDS)[number];

/** A sector's approval gates; absent on a sector without any. */
export type SectorApprovalGates = { before: boolean; after: boolean };

/** A sector's start gate: the instant (UTC ms) and the text as written. */
export type NotBefore = { at: number; raw: string };

/** One approval the engine counts: the rollout of `version` into `sector` (before) or past it (after). */
export type Approval = { sector: string; version: string; kind: ApprovalKind };

const LOCAL_IN_ZONE = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?\s+(\S+)$/;
const WITH_OFFSET = /(?:[Zz]|[+-]\d{2}:?\d{2})$/;

/**
 * Parses a notBefore: a local date-time and an IANA time zone (`2026-11-29T20:00 Europe/Zurich`,
 * the moment of that wall-clock time there; in a daylight-saving overlap the first) or an ISO-8601
 * instant with `Z` or an offset. A message when it is neither, or the local time does not exist.
 */
export function parseNotBefore(raw: unknown): NotBefore | string {
  const forms = `a local time and a time zone ('2026-11-29T20:00 Europe/Zurich') or an instant with its offset ('2026-11-29T19:00:00Z')`;
  if (typeof raw !== 'string') return `must be ${forms}, got ${raw === null ? 'null' : typeof raw}`;
  const text = raw.trim();
  const local = LOCAL_IN_ZONE.exec(text);
  if (local) {
    const zone = local[7]!;
    if (!isKnownTimeZone(zone)) return `unknown time zone '${zone}' (use an IANA name such as Europe/Zurich)`;
    const wall = parseInstant(`${local[1]}-${local[2]}-${local[3]}T${local[4]}:${local[5]}:${local[6] ?? '00'}Z`);
    if (wall === null) return `'${text}' is not a valid date and time`;
    const instants = localToInstants(zone, wall);
    if (instants.length === 0) return `${text.split(/\s+/)[0]} does not exist in ${zone} (the clocks skip it)`;
    return { at: instants[0]!, raw: text };
  }
  if (WITH_OFFSET.test(text)) {
    const at = parseInstant(text);
    if (at !== null) return { at, raw: text };
  }
  return `'${text}' is not ${forms}`;
}

/** `no upgrade before 2026-11-29T19:00:00Z (notBefore 2026-11-29T20:00 Europe/Zurich)` */
export function describeNotBefore(nb: NotBefore): string {
  const utc = formatInstant(nb.at);
  return nb.raw === utc ? `no upgrade before ${utc}` : `no upgrade before ${utc} (notBefore ${nb.raw})`;
}

/** The key of an approval in an approval set. */
export function approvalKey(kind: ApprovalKind, sector: string, version: string): string {
  return `${kind}\u0000${sector}\u0000${version}`;
}

/** The approvals as a set of keys (approvalKey) for the engine's look-ups. */
export function approvalSet(approvals: readonly Approval[] | undefined): ReadonlySet<string> {
  return new Set((approvals ?? []).map((a) => approvalKey(a.kind, a.sector, a.version)));
}

/** The gate a version waits for in a cluster's sector: the sector's own before-gate or an after-gate of a sector it follows. */
export type ApprovalWait = { kind: ApprovalKind; sector: string; version: string };

/**
 * The sectors `name` follows, directly or through others, that declare an after-gate, nearest
 * first (breadth first over the dependencies; each once).
 */
export function afterGatedSectors(sectors: ReadonlyMap<string, Sector>, name: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>([name]);
  const queue = [...(sectors.get(name)?.dependencies ?? [])];
  for (let i = 0; i < queue.length; i++) {
    const dep = queue[i]!;
    if (seen.has(dep)) continue;
    seen.add(dep);
    const sector = sectors.get(dep);
    if (sector?.approval?.after) out.push(dep);
    queue.push(...(sector?.dependencies ?? []));
  }
  return out;
}

/**
 * The approval gate an upgrade to `version` of a cluster in `sector` waits for (its sector's
 * before-gate, then the after-gates of the sectors it follows), or undefined when every one it
 * passes is approved. `afterGates` is afterGatedSectors for the sector (callers may cache it).
 */
export function unapprovedGate(
  sectors: ReadonlyMap<string, Sector>,
  approved: ReadonlySet<string>,
  sector: string,
  version: string,
  afterGates: readonly string[] = afterGatedSectors(sectors, sector),
): ApprovalWait | undefined {
  if (sectors.get(sector)?.approval?.before && !approved.has(approvalKey('before', sector, version))) {
    return { kind: 'before', sector, version };
  }
  for (const gate of afterGates) {
    if (!approved.has(approvalKey('after', gate, version))) return { kind: 'after', sector: gate, version };
  }
  return undefined;
}

/**
 * What holds the start of an upgrade to `version` in `sector` at `at` (the lifecycle's start
 * gate re-checks this, so a revoked approval or a notBefore set since stops a planned upgrade):
 * an unapproved gate, then the sector's notBefore; null when nothing does.
 */
export function sectorStartHold(
  organization: Organization,
  approvals: readonly Approval[] | undefined,
  sector: string | undefined,
  version: string,
  at: number,
): { reason: 'AWAITING_APPROVAL' | 'NOT_BEFORE'; message: string } | null {
  if (sector === undefined) return null;
  const sectors = new Map(organization.sectors.map((s) => [s.name, s]));
  const wait = unapprovedGate(sectors, approvalSet(approvals), sector, version);
  if (wait) return { reason: 'AWAITING_APPROVAL', message: describeApprovalWait(wait, sector) };
  const nb = sectors.get(sector)?.notBefore;
  if (nb && at < nb.at) return { reason: 'NOT_BEFORE', message: `sector ${sector} starts ${describeNotBefore(nb)}` };
  return null;
}

/** `4.14.5 into sector prod awaits approval` / `4.14.5 awaits approval of sector stage's completion` */
export function describeApprovalWait(w: ApprovalWait, clusterSector: string): string {
  return w.kind === 'before'
    ? `${w.version} into sector ${clusterSector} awaits approval (approval.before of sector ${w.sector})`
    : `${w.version} awaits approval of sector ${w.sector}'s completion (approval.after of sector ${w.sector})`;
}

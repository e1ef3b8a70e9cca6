// `fleetplan approve --sector NAME --version V [--kind before|after] [--reason TEXT]`,
// `fleetplan approvals list [--all]` and `fleetplan approvals revoke --sector NAME --version V
// [--kind before|after] [--reason TEXT]`: sectors' approval gates from the command line, on the
// database directly (as `org`), through the same service as the app: validated, audited (actor
// FLEETPLAN_ACTOR or cli:$USER), idempotent. Refusals: exit 2 with one line on stderr.
import { closeDatabase, openDatabaseAt } from '@/db/connect';
import { parseDatabaseUrl } from '@/db/database-location';
import type { Actor } from '@/server/auth/actor';
import { APPROVAL_KINDS, type ApprovalKind } from '@/server/domain/plan/sector-gates';
import { AppError } from '@/server/services/app-error';
import { createApprovalService, type ApprovalSummary } from '@/server/services/approval-service';
import { organizationScope } from '@/server/services/organization-scope';
import { takeOrgOption } from './org-option';
import { cliActor, processIo, type CliIo } from './import-command';

const APPROVE_USAGE = 'usage: fleetplan approve --sector NAME --version V [--kind before|after] [--reason TEXT]';
const APPROVALS_USAGE =
  'usage: fleetplan approvals list [--all] | fleetplan approvals revoke --sector NAME --version V [--kind before|after] [--reason TEXT]';

type GateArgs = { sector: string; version: string; kind: ApprovalKind; reason?: string };

/** The gate options; a message when they do not make one. */
function parseGateArgs(args: readonly string[]): GateArgs | string {
  const values = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const eq = arg.indexOf('=');
    const [flag, inline] = arg.startsWith('--') && eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined];
    if (!['--sector', '--version', '--kind', '--reason'].includes(flag)) return `unknown option '${arg}'`;
    const value = inline ?? args[++i];
    if (value === undefined) return `${flag} needs a value`;
    if (values.has(flag)) return `${flag} given twice`;
    values.set(flag, value);
  }
  const sector = values.get('--sector');
  const version = values.get('--version');
  const kind = values.get('--kind') ?? 'before';
  if (!sector || !version) return 'name the gate: --sector NAME --version V';
  if (!(APPROVAL_KINDS as readonly string[]).includes(kind)) return `--kind must be before or after, got '${kind}'`;
  const reason = values.get('--reason');
  return { sector, version, kind: kind as ApprovalKind, ...(reason !== undefined ? { reason } : {}) };
}

async function withService<T>(
  io: CliIo,
  org: string | undefined,
  work: (service: ReturnType<typeof createApprovalService>, actor: Actor) => Promise<T>,
): Promise<T> {
  const db = await openDatabaseAt(parseDatabaseUrl(io.env.DATABASE_URL));
  try {
    return await work(
      createApprovalService(db, () => new Date(), organizationScope(db, { name: org })),
      { name: cliActor(io.env), role: 'operator', via: 'system' },
    );
  } finally {
    await closeDatabase(db);
  }
}

function refused(io: CliIo, command: string, err: unknown): number {
  if (!(err instanceof AppError)) throw err;
  const detail = err.problems.length ? `: ${err.problems.map((p) => `${p.path}: ${p.message}`).join('; ')}` : '';
  io.stderr(`fleetplan ${command}: ${err.problems.length ? 'refused' : err.message}${detail}\n`);
  return 2;
}

const describeGate = (a: Pick<ApprovalSummary, 'sector' | 'version' | 'kind'>) =>
  a.kind === 'before' ? `${a.version} into sector ${a.sector}` : `${a.version} past sector ${a.sector}`;

export async function runApproveCommand(args: string[], io: CliIo = processIo): Promise<number> {
  const scoped = takeOrgOption(args);
  if ('error' in scoped) {
    io.stderr(`fleetplan approve: ${scoped.error}\n`);
    return 2;
  }
  const org = scoped.org;
  args = scoped.rest;
  const gate = parseGateArgs(args);
  if (typeof gate === 'string') {
    io.stderr(`fleetplan approve: ${gate}\n${APPROVE_USAGE}\n`);
    return 2;
  }
  try {
    const r = await withService(io, org, async (s, actor) => await s.approve({ ...gate, actor }));
    io.stdout(
      r.changed
        ? `approved ${describeGate(r.approval)} (${r.approval.approvedBy})\n`
        : `${describeGate(r.approval)} was approved already (${r.approval.approvedBy}, ${r.approval.approvedAt}); nothing changed\n`,
    );
    return 0;
  } catch (err) {
    return refused(io, 'approve', err);
  }
}

export async function runApprovalsCommand(args: string[], io: CliIo = processIo): Promise<number> {
  const scoped = takeOrgOption(args);
  if ('error' in scoped) {
    io.stderr(`fleetplan approvals: ${scoped.error}\n`);
    return 2;
  }
  const org = scoped.org;
  args = scoped.rest;
  const [sub, ...rest] = args;
  if (sub === 'list' && (rest.length === 0 || (rest.length === 1 && rest[0] === '--all'))) {
    try {
      const list = await withService(io, org, async (s) => await s.list({ includeRevoked: rest[0] === '--all' }));
      if (list.length === 0) io.stdout('no approvals\n');
      for (const a of list) {
        io.stdout(
          `${a.sector}\t${a.version}\t${a.kind}\t${a.approvedBy}\t${a.approvedAt}${a.reason ? `\t${a.reason}` : ''}${a.revokedAt ? `\trevoked ${a.revokedAt} by ${a.revokedBy}` : ''}\n`,
        );
      }
      return 0;
    } catch (err) {
      return refused(io, 'approvals list', err);
    }
  }
  if (sub === 'revoke') {
    const gate = parseGateArgs(rest);
    if (typeof gate === 'string') {
      io.stderr(`fleetplan approvals revoke: ${gate}\n${APPROVALS_USAGE}\n`);
      return 2;
    }
    try {
      const r = await withService(io, org, async (s, actor) => await s.revoke({ ...gate, actor }));
      io.stdout(r.changed ? `revoked the approval of ${describeGate(r.approval)}\n` : `${describeGate(r.approval)} was revoked already\n`);
      return 0;
    } catch (err) {
      return refused(io, 'approvals revoke', err);
    }
  }
  io.stderr(`${APPROVALS_USAGE}\n`);
  return 2;
}

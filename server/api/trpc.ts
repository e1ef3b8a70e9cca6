// tRPC plumbing: context, error mapping and the role-checked procedure builders.
// Every procedure is built from one of viewerProcedure/operatorProcedure/adminProcedure
// (publicProcedure only for login and health): server/api/procedure-roles.test.ts checks it.
import { initTRPC, TRPCError } from '@trpc/server';
import { ZodError } from 'zod';
import type { Db } from '@/db/open-database';
import { hasRole, type Actor, type Role, type TokenPermission } from '@/server/auth/actor';
import type { RequestIdentity } from '@/server/auth/resolve-request-actor';
import { clientAddressOf } from '@/server/auth/sign-in-throttle';
import { getEnv, type FleetplanEnv } from '@/server/env';
import { getFleetClock } from '@/server/fleet-clock';
import { internalErrorMessage, reportInternalError } from '@/server/http/internal-error';
import { AppError, type AppErrorCode } from '@/server/services/app-error';
import { createServices, type Services } from '@/server/services/create-services';
import { processForecastOffload } from '@/server/services/forecast-service';
import { actorOnOrganization } from '@/server/services/organization-roles';
import { ORGANIZATION_HEADER, organizationScope, type OrganizationScope } from '@/server/services/organization-scope';
import { processSchedulerControl } from '@/server/scheduler/start';
import type { FleetProvider } from '@/server/integrations/providers/types';

export interface ContextInner {
  db: Db;
  /** the fleet's clock (may be simulated) and the wall clock; see server/services/create-services.ts */
  fleetNow: () => Date;
  realNow: () => Date;
  actor: Actor | null;
  services: Services;
  /** the request's organization (server/services/organization-scope.ts) */
  organization: OrganizationScope;
  /** response headers a procedure may set (session cookies) */
  resHeaders?: Headers;
  /** CSRF check result for the request; mutations refuse when false */
  csrfOk?: boolean;
  /** the request came over https: session cookies get `Secure` */
  secureCookies?: boolean;
  /** the client's address as far as we can tell (sign-in throttling); see server/auth/sign-in-throttle.ts */
  clientAddress?: string;
}

export function createContextInner(opts: {
  db: Db;
  fleetNow?: () => Date;
  realNow?: () => Date;
  /** the checked settings; the process's own (server/env.ts) unless a test passes others */
  env?: FleetplanEnv;
  actor: Actor | null;
  resHeaders?: Headers;
  csrfOk?: boolean;
  secureCookies?: boolean;
  clientAddress?: string;
  /** the provider an operator's write goes to (tests pass a fake; the configured one otherwise) */
  provider?: () => Promise<FleetProvider>;
  /** the organization the request names (the `x-fleetplan-org` header); else the user's last choice, else the first */
  organization?: string | null;
}): ContextInner {
  const realNow = opts.realNow ?? (() => new Date());
  const fleetNow = opts.fleetNow ?? realNow;
  const organization = organizationScope(opts.db, { name: opts.organization ?? null, userId: opts.actor?.userId ?? null });
  return {
    db: opts.db,
    fleetNow,
    realNow,
    actor: opts.actor,
    services: createServices({
      db: opts.db,
      fleetNow,
      realNow,
      env: opts.env ?? getEnv(),
      scheduler: processSchedulerControl(),
      forecastOffload: processForecastOffload(),
      provider: opts.provider,
      organization,
    }),
    organization,
    resHeaders: opts.resHeaders,
    csrfOk: opts.csrfOk ?? true,
    secureCookies: opts.secureCookies ?? false,
    clientAddress: opts.clientAddress ?? 'unknown',
  };
}

/**
 * The context of an HTTP request whose sender `identity` names (resolveRequestActor): the tRPC
 * route's and the graph upload's, so both compose it the same way.
 */
export async function createRequestContext(opts: {
  db: Db;
  req: Request;
  identity: RequestIdentity;
  resHeaders?: Headers;
}): Promise<ContextInner> {
  const env = getEnv();
  return createContextInner({
    db: opts.db,
    fleetNow: await getFleetClock(opts.db),
    realNow: () => new Date(),
    env,
    actor: opts.identity.actor,
    csrfOk: opts.identity.csrfOk,
    secureCookies: opts.identity.secure,
    clientAddress: clientAddressOf(opts.req.headers, env.trustProxy),
    resHeaders: opts.resHeaders,
    organization: requestedOrganization(opts.req.headers),
  });
}

/** The organization name the request's `x-fleetplan-org` header carries (URI-encoded by the client), or null. */
export function requestedOrganization(headers: Headers): string | null {
  const raw = headers.get(ORGANIZATION_HEADER);
  if (!raw) return null;
  try {
    return decodeURIComponent(raw).trim() || null;
  } catch {
    return raw.trim() || null;
  }
}

const TRPC_CODE: Record<AppErrorCode, TRPCError['code']> = {
  NOT_FOUND: 'NOT_FOUND',
  CONFLICT: 'CONFLICT',
  INVALID_INPUT: 'BAD_REQUEST',
  PRECONDITION_FAILED: 'PRECONDITION_FAILED',
  FORBIDDEN: 'FORBIDDEN',
  UNAUTHORIZED: 'UNAUTHORIZED',
  TOO_MANY_REQUESTS: 'TOO_MANY_REQUESTS',
};

const t = initTRPC.context<ContextInner>().create({
  errorFormatter({ shape, error, path }) {
    if (error.code === 'INTERNAL_SERVER_ERROR') {
      // not a deliberate answer (AppErrors map onto other codes): the client gets a reference only
      const reference = reportInternalError(error.cause ?? error, `tRPC ${path ?? '?'}`);
      return {
        ...shape,
        message: internalErrorMessage(reference),
        data: {
          code: shape.data.code,
          httpStatus: shape.data.httpStatus,
          path: shape.data.path,
          reference,
          zodError: null,
          problems: null,
        },
      };
    }
    const cause = error.cause;
    return {
      ...shape,
      data: {
        ...shape.data,
        stack: undefined,
        reference: null,
        zodError: cause instanceof ZodError ? cause.issues.map((i) => ({ path: i.path.join('.'), message: i.message })) : null,
        problems: cause instanceof AppError ? cause.problems : null,
      },
    };
  },
});

const mapAppErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof AppError) {
    const cause = result.error.cause;
    throw new TRPCError({ code: TRPC_CODE[cause.code], message: cause.message, cause });
  }
  return result;
});

/** the one role-checked procedure a user who must change their password may call */
const CHANGE_PASSWORD_PATH = 'auth.changePassword';

export interface ProcedureRefusal {
  code: 'UNAUTHORIZED' | 'FORBIDDEN';
  message: string;
}

/**
 * Why `actor` may not call the procedure at `path` that needs `role`, or null when it may. The one
 * rule: the role-checked procedures below apply it, and app/paths/upload/route.ts applies it to
 * graphs.import before reading the upload's body.
 */
export function procedureRefusal(
  actor: Actor | null,
  role: Role,
  call: { path: string; mutation: boolean; csrfOk: boolean; permission?: TokenPermission },
): ProcedureRefusal | null {
  if (!actor) return { code: 'UNAUTHORIZED', message: 'Sign in first' };
  if (actor.mustChangePassword && call.path !== CHANGE_PASSWORD_PATH) return { code: 'FORBIDDEN', message: 'Change your password first' };
  // a token scoped to one permission may call only what accepts it, and that whatever its role
  if (actor.permission) {
    return actor.permission === call.permission ? null : { code: 'FORBIDDEN', message: `This token may only do ${actor.permission}` };
  }
  if (!hasRole(actor, role)) return { code: 'FORBIDDEN', message: `This needs the ${role} role; you are ${actor.role}` };
  if (call.mutation && actor.via === 'session' && !call.csrfOk) return { code: 'FORBIDDEN', message: 'Missing or wrong CSRF token' };
  return null;
}

/**
 * `organization`: the procedure reads or writes the request's organization, and the actor's role
 * there counts (a per-organization grant replaces the global role: server/services/organization-roles.ts).
 * `instance`: the procedure acts on the whole instance, and only the global role counts.
 * `permission`: a token scoped to it may call the procedure too (and nothing without it).
 */
function requireRole(role: Role, scope: 'organization' | 'instance', permission?: TokenPermission) {
  return t.middleware(async ({ ctx, type, path, next }) => {
    const actor = scope === 'organization' ? await actorOnOrganization(ctx.db, ctx.actor, ctx.organization) : ctx.actor;
    const refusal = procedureRefusal(actor, role, {
      path,
      mutation: type === 'mutation',
      csrfOk: ctx.csrfOk === true,
      ...(permission ? { permission } : {}),
    });
    if (refusal) throw new TRPCError(refusal);
    // no refusal: there is an actor
    return next({ ctx: { ...ctx, actor: actor! } });
  });
}

export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;
const base = t.procedure.use(mapAppErrors);
/** no sign-in needed: only login and health */
export const publicProcedure = base;
/** procedures on the request's organization: the role the actor has there */
export const viewerProcedure = base.use(requireRole('viewer', 'organization'));
export const operatorProcedure = base.use(requireRole('operator', 'organization'));
export const adminProcedure = base.use(requireRole('admin', 'organization'));
/** procedures on the whole instance (users, tokens, the scheduler, update graphs, …): the global role */
export const instanceViewerProcedure = base.use(requireRole('viewer', 'instance'));
export const instanceOperatorProcedure = base.use(requireRole('operator', 'instance'));
export const instanceAdminProcedure = base.use(requireRole('admin', 'instance'));
/** operators, and API tokens scoped to `approvals:write` (a CI job that approves gates and nothing else) */
export const approverProcedure = base.use(requireRole('operator', 'organization', 'approvals:write'));

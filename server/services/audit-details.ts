// What the Activity page shows of an audit entry's before/after values. The audit log keeps what
// the writing service stored; readers (every signed-in viewer) get only the fields listed here
// for that action. An action missing from the list shows no details at all, so a new audited
// entity cannot leak a URL or secret by default. Webhook URLs are shown to admins only (they
// manage webhooks and see the URLs on the Admin page anyway).

export type ActivityAudience = 'admin' | 'member';

interface ShownFields {
  /** fields every reader sees; `'*'` shows the whole value (policy documents, readable anyway) */
  fields: readonly string[] | '*';
  /** extra fields for admins */
  adminFields?: readonly string[];
}

const EXCLUSION: ShownFields = { fields: ['scope', 'subject', 'startsAt', 'endsAt', 'reason'] };
const WEBHOOK: ShownFields = { fields: ['name', 'events', 'selector'], adminFields: ['url', 'organization'] };
const TOKEN: ShownFields = { fields: ['name', 'scope', 'owner', 'revoked', 'expiresAt'], adminFields: ['prefix'] };
const GRAPH: ShownFields = {
  fields: ['name', 'channel', 'architecture', 'capturedAt', 'source', 'nodeCount', 'edgeCount', 'importedAt', 'conditionalPairs'],
};
const POLICY: ShownFields = { fields: '*' };

export const AUDIT_DETAILS: Readonly<Record<string, ShownFields>> = {
  'auth.login': { fields: ['method'] },
  'auth.logout': { fields: [] },
  // whether the attempted username exists, and what an identity provider said about whom, is for admins only
  'auth.login-failed': { fields: [], adminFields: ['known', 'reason', 'description', 'username', 'groups'] },
  'user.change-password': { fields: ['passwordChanged', 'tokensRevoked'] },
  'user.create': { fields: ['role', 'demo', 'provider'], adminFields: ['email', 'groups'] },
  'user.set-role': { fields: ['role', 'reason'], adminFields: ['groups'] },
  'user.disable': { fields: ['disabled'] },
  'user.enable': { fields: ['disabled'] },
  'user.reset-password': { fields: ['passwordChanged', 'tokensRevoked'] },
  'user.organization-role.grant': { fields: ['organization', 'role'] },
  'user.organization-role.revoke': { fields: ['organization', 'role'] },
  'token.create': TOKEN,
  'token.revoke': TOKEN,
  'exclusion.create': EXCLUSION,
  'lifecycle.acknowledge-failure': { fields: ['state', 'reason', 'message', 'acknowledged', 'comment'] },
  'cluster.label': { fields: ['labels'] },
  'cluster.acknowledge-version-gate': { fields: ['gateId', 'minor', 'description', 'agreed', 'atProvider'] },
  'exclusion.delete': EXCLUSION,
  'approval.approve': { fields: ['sector', 'version', 'kind', 'approved', 'reason'] },
  'approval.revoke': { fields: ['sector', 'version', 'kind', 'approved', 'reason'] },
  'webhook.create': WEBHOOK,
  'webhook.delete': WEBHOOK,
  'graph.import': GRAPH,
  'graph.delete': GRAPH,
  'scheduler.dry-run': { fields: ['dryRun'] },
  'scheduler.run-now': { fields: ['dryRun'] },
  'scheduler.pause': { fields: ['paused'] },
  'scheduler.resume': { fields: ['paused'] },
  'scheduler.health-gate': { fields: ['enabled'] },
  'simulator.speed': { fields: ['speed'] },
  'simulator.pause': { fields: [] },
  'simulator.resume': { fields: [] },
  'simulator.advance': { fields: ['seconds'] },
  'instance.blocked-version.add': { fields: ['pattern', 'reason'] },
  'instance.blocked-version.remove': { fields: ['pattern', 'reason'] },
  'organization.create': { fields: ['name'] },
  'organization.provider': { fields: ['kind'], adminFields: ['credentialsRef'] },
  'policy.organization.update': POLICY,
  'policy.freeze': POLICY,
  'policy.unfreeze': POLICY,
  'policy.cluster.update': POLICY,
  'policy.blocked-version.add': POLICY,
  'policy.blocked-version.remove': POLICY,
  'policy.revert': POLICY,
  'policy.import': POLICY,
  'policy.import.file': POLICY,
};

/** The part of one audit value (`before` or `after`) that `audience` may see; null shows nothing. */
export function auditDetails(action: string, value: unknown, audience: ActivityAudience): unknown {
  const shown = AUDIT_DETAILS[action];
  if (!shown || value === null || value === undefined) return null;
  if (shown.fields === '*') return value;
  if (typeof value !== 'object' || Array.isArray(value)) return null;
  const allowed = audience === 'admin' ? [...shown.fields, ...(shown.adminFields ?? [])] : shown.fields;
  const out: Record<string, unknown> = {};
  for (const field of allowed) {
    if (Object.hasOwn(value, field)) out[field] = (value as Record<string, unknown>)[field];
  }
  return Object.keys(out).length > 0 ? out : null;
}

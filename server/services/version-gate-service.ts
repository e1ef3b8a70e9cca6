// An operator acknowledges a provider's version gate for one cluster (OCM: a gate agreement), so
// upgrades to its minor are no longer held (VERSION_GATE). Acknowledging is a write to the
// provider: it checks the gate is still pending here, asks the provider (which re-reads the
// cluster's agreements and agrees at most once), then takes the gate off the cluster and writes
// the audit row in one transaction.
import type { Db } from '@/db/open-database';
import type { Actor } from '@/server/auth/actor';
import type { FleetProvider } from '@/server/integrations/providers/types';
import { appendAudit } from '@/server/repositories/audit-repository';
import { findClusterByName, listPendingVersionGates, removePendingVersionGate } from '@/server/repositories/cluster-repository';
import { withTransaction } from '@/server/repositories/transaction';
import { AppError } from './app-error';
import type { OrganizationScope } from './organization-scope';

/**
 * Acknowledgements in progress in this process, by cluster and gate: a second click (or a second
 * operator) while the first is with the provider waits for the same answer instead of asking again.
 */
const inFlight = new Map<string, Promise<VersionGateAcknowledgement>>();

export interface VersionGateAcknowledgement {
  cluster: string;
  gateId: string;
  minor: string;
  /** 'already-agreed': the provider had it (agreed elsewhere); nothing was written there */
  atProvider: 'agreed' | 'already-agreed';
  acknowledgedBy: string;
  acknowledgedAt: string;
}

export interface PendingVersionGate {
  cluster: string;
  gateId: string;
  minor: string;
  description: string;
  documentationUrl: string | null;
}

export function createVersionGateService(deps: {
  db: Db;
  realNow: () => Date;
  provider: () => Promise<FleetProvider>;
  organization: OrganizationScope;
}) {
  const { db } = deps;

  async function acknowledgeOnce(input: { cluster: string; gateId: string; actor: Actor }): Promise<VersionGateAcknowledgement> {
    const org = await deps.organization();
    const row = org && (await findClusterByName(db, input.cluster, org.id));
    if (!row) throw new AppError('NOT_FOUND', `No cluster named ${input.cluster}`);
    const gate = row.pendingVersionGates.find((g) => g.id === input.gateId);
    if (!gate)
      throw new AppError(
        'CONFLICT',
        `${input.cluster} has no pending version gate ${input.gateId} (already acknowledged, or no longer offered)`,
      );
    let provider: FleetProvider;
    try {
      provider = await deps.provider();
    } catch (err) {
      throw new AppError('PRECONDITION_FAILED', `No provider to agree with: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (!provider.acknowledgeVersionGate)
      throw new AppError('PRECONDITION_FAILED', `The ${provider.name} provider has no version gates to acknowledge`);
    let atProvider: 'agreed' | 'already-agreed';
    try {
      atProvider = await provider.acknowledgeVersionGate({ externalId: row.externalId, name: row.name }, gate.id, deps.realNow());
    } catch (err) {
      // nothing changed here: the gate stays pending and no audit row claims an agreement
      throw new AppError(
        'PRECONDITION_FAILED',
        `${provider.name} did not take the agreement: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    const at = deps.realNow();
    await withTransaction(db, async (tx) => {
      await removePendingVersionGate(tx, row.id, gate.id);
      await appendAudit(tx, {
        at,
        actor: input.actor.name,
        action: 'cluster.acknowledge-version-gate',
        organizationId: row.organizationId,
        target: `${row.name}@${gate.minor}`,
        before: { gateId: gate.id, minor: gate.minor, description: gate.description, agreed: false },
        after: { gateId: gate.id, minor: gate.minor, description: gate.description, agreed: true, atProvider },
      });
    });
    return {
      cluster: row.name,
      gateId: gate.id,
      minor: gate.minor,
      atProvider,
      acknowledgedBy: input.actor.name,
      acknowledgedAt: at.toISOString(),
    };
  }

  return {
    /** every gate a cluster has not agreed to, by cluster name then minor */
    async pending(): Promise<PendingVersionGate[]> {
      const org = await deps.organization();
      if (!org) return [];
      return (await listPendingVersionGates(db, org.id)).flatMap((row) =>
        [...row.gates]
          .sort((a, b) => a.minor.localeCompare(b.minor, 'en', { numeric: true }))
          .map((g) => ({
            cluster: row.cluster,
            gateId: g.id,
            minor: g.minor,
            description: g.description,
            documentationUrl: g.documentationUrl,
          })),
      );
    },
    async acknowledge(input: { cluster: string; gateId: string; actor: Actor }): Promise<VersionGateAcknowledgement> {
      // cluster names are unique within an organization only
      const key = `${(await deps.organization())?.id ?? 0}\u0000${input.cluster}\u0000${input.gateId}`;
      const running = inFlight.get(key);
      if (running) return running;
      const p = acknowledgeOnce(input).finally(() => inFlight.delete(key));
      inFlight.set(key, p);
      return p;
    },
  };
}

// The organizations a signed-in user sees and switches between (the top bar), and an admin's
// "new organization". The choice is remembered per user (users.selected_organization_id), so a
// visit without `?org=` lands where the user was.
import type { Db } from '@/db/open-database';
import type { Actor } from '@/server/auth/actor';
import {
  findOrganizationByName,
  listOrganizations,
  readSelectedOrganizationId,
  writeSelectedOrganizationId,
} from '@/server/repositories/organization-repository';
import { withTransaction } from '@/server/repositories/transaction';
import type { OrganizationProviderKind } from '@/server/integrations/providers/create-provider';
import { AppError } from './app-error';
import { createOrganizationAdminService } from './organization-admin-service';
import { grantedOrganizationIdsOf, unknownOrganization, type OrganizationScope } from './organization-scope';

export function createOrganizationService(db: Db, realNow: () => Date, scope: OrganizationScope) {
  const admin = createOrganizationAdminService(db, realNow);
  return {
    /** every organization, the one this request works on, and the one the user last chose */
    async list(actor?: Actor) {
      const current = await scope();
      // a user without a global role sees only the organizations it holds a grant on
      const visible = actor?.userId !== undefined ? await grantedOrganizationIdsOf(db, actor.userId) : null;
      const all = (await listOrganizations(db)).filter((o) => visible === null || visible.includes(o.id));
      const rememberedId = actor?.userId !== undefined ? await readSelectedOrganizationId(db, actor.userId) : null;
      return {
        organizations: all.map((o) => ({ name: o.name, frozen: o.frozen })),
        current: current?.name ?? null,
        remembered: all.find((o) => o.id === rememberedId)?.name ?? null,
      };
    },

    /** remembers `name` as the user's organization (the next visit without `?org=` lands there) */
    async select(input: { name: string; actor: Actor }) {
      if (input.actor.userId === undefined)
        throw new AppError('PRECONDITION_FAILED', 'Only a signed-in user has a remembered organization');
      return await withTransaction(db, async (tx) => {
        const org = await findOrganizationByName(tx, input.name);
        const visible = await grantedOrganizationIdsOf(tx, input.actor.userId!);
        if (!org || (visible !== null && !visible.includes(org.id))) throw unknownOrganization(input.name);
        await writeSelectedOrganizationId(tx, input.actor.userId!, org.id);
        return { name: org.name };
      });
    },

    /** an admin gives an organization its own provider (a kind and a credentials reference), or leaves it to the instance's */
    async setProvider(input: {
      organization: string;
      kind: OrganizationProviderKind | null;
      credentialsRef?: string | null;
      actor: Actor;
    }) {
      return await admin.setProvider(input.actor.name, input);
    },

    /** every organization with its provider settings (admins): the rows alone, not admin.list()'s five counts per organization */
    async providers() {
      return (await listOrganizations(db)).map((o) => ({
        name: o.name,
        provider: o.providerKind,
        credentialsRef: o.providerCredentialsRef,
      }));
    },

    /** an admin adds an organization (or names the blank first-run one; organization-admin-service.ts) */
    async create(input: { name: string; actor: Actor }) {
      return await admin.create(input.actor.name, input.name.trim());
    },
  };
}

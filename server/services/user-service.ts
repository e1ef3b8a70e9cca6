// Admin use cases on local users. Guards: usernames are unique, and the last enabled admin can be
// neither demoted nor disabled (nobody could administer the server after that).
import type { Db } from '@/db/open-database';
import type { Actor, Role } from '@/server/auth/actor';
import { hashPassword } from '@/server/auth/password';
import { passwordProblem } from '@/server/auth/password-policy';
import { revokeTokensOfUser } from '@/server/repositories/token-repository';
import { generateSecret } from '@/server/auth/secrets';
import { appendAudit } from '@/server/repositories/audit-repository';
import { deleteSessionsOfUser } from '@/server/repositories/session-repository';
import { withTransaction } from '@/server/repositories/transaction';
import * as usersRepo from '@/server/repositories/user-repository';
import { AppError } from './app-error';

export interface UserSummary {
  username: string;
  role: Role;
  disabled: boolean;
  createdAt: string;
  /** the identity provider this user signs in through (its role follows its groups there); null = a local user */
  signsInWith: string | null;
  /** no global role: only the organizations it holds a grant on (an identity only an organization's groups let in) */
  organizationsOnly: boolean;
}

function toSummary(row: usersRepo.UserRow): UserSummary {
  return {
    username: row.username,
    role: row.role,
    disabled: row.disabled,
    createdAt: row.createdAt.toISOString(),
    signsInWith: row.externalSubject === null ? null : row.externalSubject.slice(0, row.externalSubject.indexOf(':')),
    organizationsOnly: row.organizationsOnly,
  };
}

/** role and password of a user from an identity provider are the provider's: a change here would not last */
function refuseForExternalUser(row: usersRepo.UserRow, what: string): void {
  if (row.externalSubject !== null) {
    throw new AppError('PRECONDITION_FAILED', `${row.username} signs in through an identity provider: its ${what} is managed there`);
  }
}

/** `realNow` stamps accounts and audit rows (never the fleet's simulated clock) */
export function createUserService(deps: { db: Db; realNow: () => Date }) {
  const { db, realNow } = deps;

  async function requireUser(username: string): Promise<usersRepo.UserRow> {
    const row = await usersRepo.findUserByName(db, username);
    if (!row) throw new AppError('NOT_FOUND', `User ${username} does not exist`);
    return row;
  }

  async function guardLastAdmin(row: usersRepo.UserRow, what: string): Promise<void> {
    if (row.role === 'admin' && !row.disabled && (await usersRepo.countOtherActiveAdmins(db, row.id)) === 0) {
      throw new AppError('PRECONDITION_FAILED', `Cannot ${what} ${row.username}: it is the last enabled admin`);
    }
  }

  function requireGoodPassword(password: string, username: string): void {
    const problem = passwordProblem(password, username);
    if (problem) throw new AppError('INVALID_INPUT', `The password ${problem}`, [{ path: 'password', message: problem }]);
  }

  /** written in the caller's transaction (`tx`), so a change and its audit entry land together */
  async function audit(tx: Db, actor: Actor, action: string, username: string, before: unknown, after: unknown): Promise<void> {
    await appendAudit(tx, { organizationId: null, at: realNow(), actor: actor.name, action, target: `user:${username}`, before, after });
  }

  return {
    async list(): Promise<UserSummary[]> {
      return (await usersRepo.listUsers(db)).map(toSummary);
    },

    async create(input: { username: string; password: string; role: Role; actor: Actor }): Promise<UserSummary> {
      if (await usersRepo.findUserByName(db, input.username)) throw new AppError('CONFLICT', `User ${input.username} already exists`);
      requireGoodPassword(input.password, input.username);
      const passwordHash = await hashPassword(input.password);
      const row = await withTransaction(db, async (tx) => {
        const inserted = await usersRepo.insertUser(tx, { username: input.username, passwordHash, role: input.role, createdAt: realNow() });
        await audit(tx, input.actor, 'user.create', inserted.username, null, { role: inserted.role });
        return inserted;
      });
      return toSummary(row);
    },

    async setRole(input: { username: string; role: Role; actor: Actor }): Promise<UserSummary> {
      const row = await requireUser(input.username);
      if (row.role === input.role) return toSummary(row);
      refuseForExternalUser(row, 'role');
      if (input.role !== 'admin') await guardLastAdmin(row, 'demote');
      await withTransaction(db, async (tx) => {
        await usersRepo.updateUser(tx, row.id, { role: input.role });
        await audit(tx, input.actor, 'user.set-role', row.username, { role: row.role }, { role: input.role });
      });
      return toSummary({ ...row, role: input.role });
    },

    async setDisabled(input: { username: string; disabled: boolean; actor: Actor }): Promise<UserSummary> {
      const row = await requireUser(input.username);
      if (row.disabled === input.disabled) return toSummary(row);
      if (input.disabled) {
        if (row.id === input.actor.userId) throw new AppError('PRECONDITION_FAILED', 'You cannot disable your own account');
        await guardLastAdmin(row, 'disable');
      }
      await withTransaction(db, async (tx) => {
        if (input.disabled) await deleteSessionsOfUser(tx, row.id);
        await usersRepo.updateUser(tx, row.id, { disabled: input.disabled });
        await audit(
          tx,
          input.actor,
          input.disabled ? 'user.disable' : 'user.enable',
          row.username,
          { disabled: row.disabled },
          { disabled: input.disabled },
        );
      });
      return toSummary({ ...row, disabled: input.disabled });
    },

    /** Sets a new password (generated when none is given, returned once) and ends the user's sessions. */
    async resetPassword(input: {
      username: string;
      password?: string;
      actor: Actor;
    }): Promise<{ username: string; generatedPassword: string | null }> {
      const row = await requireUser(input.username);
      refuseForExternalUser(row, 'password');
      if (input.password !== undefined) requireGoodPassword(input.password, row.username);
      const generated = input.password ? null : generateSecret(15);
      const passwordHash = await hashPassword(input.password ?? generated!);
      const now = realNow();
      await withTransaction(db, async (tx) => {
        // the admin knows this password: the user replaces it at the next sign-in
        await usersRepo.updateUser(tx, row.id, { passwordHash, mustChangePassword: row.id !== input.actor.userId });
        await deleteSessionsOfUser(tx, row.id);
        const tokensRevoked = await revokeTokensOfUser(tx, row.id, now);
        await audit(tx, input.actor, 'user.reset-password', row.username, null, {
          passwordChanged: true,
          sessionsEnded: true,
          tokensRevoked,
        });
      });
      return { username: row.username, generatedPassword: generated };
    },
  };
}

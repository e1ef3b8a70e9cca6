import { describe, expect, it } from 'vitest';
import {
  applyOrganizationGrantChanges,
  parseOrganizationRoleGroups,
  parseRoleGroups,
  planOrganizationGrants,
  roleForGroups,
  type OrganizationGrant,
} from './role-mapping';

describe('OIDC group → role mapping', () => {
  const mapping = parseRoleGroups('admin=fleet-admins; operator=sre,oncall ;viewer=staff');

  it('gives the highest role any group grants', () => {
    expect(roleForGroups(mapping, ['staff', 'oncall'])).toBe('operator');
    expect(roleForGroups(mapping, ['fleet-admins', 'staff'])).toBe('admin');
    expect(roleForGroups(mapping, ['staff'])).toBe('viewer');
  });

  it('refuses an identity in none of the groups, unless a role is granted to everyone', () => {
    expect(roleForGroups(mapping, ['marketing'])).toBeNull();
    expect(roleForGroups(mapping, [])).toBeNull();
    expect(roleForGroups(parseRoleGroups('viewer=*;admin=ops'), [])).toBe('viewer');
    expect(roleForGroups(parseRoleGroups('viewer=*;admin=ops'), ['ops'])).toBe('admin');
  });

  it.each([
    ['', 'no role is mapped'],
    ['root=ops', "'root' is not a role"],
    ['admin', 'is not ROLE=GROUP'],
    ['admin=', 'names no group'],
    ['admin=a;admin=b', 'given twice'],
  ])('rejects %j (%s)', (text, message) => {
    expect(() => parseRoleGroups(text)).toThrow(message);
  });
});

describe('parseOrganizationRoleGroups (FLEETPLAN_OIDC_ORG_ROLE_GROUPS)', () => {
  it('reads one mapping per organization, keeping each as written', () => {
    const parsed = parseOrganizationRoleGroups('team-a: operator=team-a;viewer=staff | team-b:admin=b-admins');
    expect([...parsed]).toEqual([
      ['team-a', 'operator=team-a;viewer=staff'],
      ['team-b', 'admin=b-admins'],
    ]);
  });

  it.each([
    ['', 'no organization is given a mapping'],
    ['team-a', 'is not ORGANIZATION:ROLE=GROUP'],
    [':admin=a', 'names no organization'],
    ['team-a:admin=a|team-a:viewer=*', "'team-a' is given twice"],
    ['team-a:root=a', "team-a: 'root' is not a role"],
    ['team-a:admin=', "team-a: the role 'admin' names no group"],
  ])('rejects %j (%s)', (text, message) => {
    expect(() => parseOrganizationRoleGroups(text)).toThrow(message);
  });
});

describe('planOrganizationGrants', () => {
  const A = 1;
  const B = 2;
  const C = 3;
  const mappings = new Map([
    [A, parseRoleGroups('operator=team-a;viewer=staff')],
    [B, parseRoleGroups('admin=b-admins')],
  ]);
  const oidc = (organizationId: number, role: OrganizationGrant['role']): OrganizationGrant => ({ organizationId, role, source: 'oidc' });
  const manual = (organizationId: number, role: OrganizationGrant['role']): OrganizationGrant => ({
    organizationId,
    role,
    source: 'manual',
  });

  it('adds a grant where an organization maps one of the groups, with the highest role there', () => {
    expect(planOrganizationGrants([], mappings, ['staff', 'team-a'])).toEqual([{ kind: 'add', organizationId: A, role: 'operator' }]);
    expect(planOrganizationGrants([], mappings, ['b-admins'])).toEqual([{ kind: 'add', organizationId: B, role: 'admin' }]);
    expect(planOrganizationGrants([], mappings, ['marketing'])).toEqual([]);
  });

  it('changes a grant from the mapping when the groups now map to another role, and leaves an equal one alone', () => {
    expect(planOrganizationGrants([oidc(A, 'viewer')], mappings, ['team-a'])).toEqual([
      { kind: 'change', organizationId: A, before: 'viewer', role: 'operator' },
    ]);
    expect(planOrganizationGrants([oidc(A, 'operator')], mappings, ['team-a'])).toEqual([]);
  });

  it('removes a grant from the mapping once the user left the group, or the organization has no mapping any more', () => {
    expect(planOrganizationGrants([oidc(A, 'operator')], mappings, ['marketing'])).toEqual([
      { kind: 'remove', organizationId: A, before: 'operator' },
    ]);
    expect(planOrganizationGrants([oidc(C, 'viewer')], mappings, ['team-a'])).toEqual([
      { kind: 'add', organizationId: A, role: 'operator' },
      { kind: 'remove', organizationId: C, before: 'viewer' },
    ]);
  });

  it('never touches a grant an admin made by hand, whatever the groups say', () => {
    expect(planOrganizationGrants([manual(A, 'admin'), manual(C, 'viewer')], mappings, ['staff'])).toEqual([]);
    expect(planOrganizationGrants([manual(B, 'viewer')], mappings, ['b-admins'])).toEqual([]);
  });

  it('applies its changes to the grants', () => {
    const current = [oidc(A, 'viewer'), manual(B, 'viewer'), oidc(C, 'admin')];
    const changes = planOrganizationGrants(current, mappings, ['team-a']);
    expect(applyOrganizationGrantChanges(current, changes)).toEqual([oidc(A, 'operator'), manual(B, 'viewer')]);
  });
});

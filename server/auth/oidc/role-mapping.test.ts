import { describe, expect, it } from 'vitest';
import { parseRoleGroups, roleForGroups } from './role-mapping';

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

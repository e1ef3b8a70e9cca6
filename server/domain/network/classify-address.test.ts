import { describe, expect, it } from 'vitest';
import { classifyIpAddress, formatIpAddress, isLoopbackHostname, parseIpAddress } from './classify-address';

describe('parseIpAddress: every spelling of an address becomes its bytes', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['0x7F.0x0.0x0.0x1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['127.0.1', '127.0.0.1'],
    ['127.0.0.1.', '127.0.0.1'],
    ['0', '0.0.0.0'],
    ['0xa9fea9fe', '169.254.169.254'],
    ['[::1]', '::1'],
    ['::ffff:127.0.0.1', '::ffff:7f00:1'],
    ['[::ffff:7f00:1]', '::ffff:7f00:1'],
    ['0:0:0:0:0:ffff:7f00:0001', '::ffff:7f00:1'],
    ['fe80::1%eth0', 'fe80::1'],
    ['[fe80::1%25en0]', 'fe80::1'],
    ['2001:DB8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['64:ff9b::192.168.1.1', '64:ff9b::c0a8:101'],
    ['::', '::'],
  ])('%s is %s', (text, normal) => {
    const ip = parseIpAddress(text);
    expect(ip).not.toBeNull();
    expect(formatIpAddress(ip!)).toBe(normal);
  });

  it.each([
    'example.com',
    'localhost',
    '256.0.0.1',
    '1.2.3.4.5',
    '4294967296',
    '08.0.0.1', // 8 is not an octal digit
    '1..2',
    '',
    '::1::',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7',
    '::ffff:1.2.3',
    '::ffff:1.2.3.04',
    'fe80::1%',
    '12345::',
    'g::1',
  ])('%j is not an IP address', (text) => {
    expect(parseIpAddress(text)).toBeNull();
  });
});

describe('classifyIpAddress: only globally reachable addresses are public', () => {
  it.each([
    // loopback in every spelling
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['2130706433', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['0x7f.1', 'loopback'],
    ['127.1', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback (IPv4-mapped)'],
    ['::ffff:7f00:1', 'loopback (IPv4-mapped)'],
    ['::ffff:0:7f00:1', 'loopback (IPv4-translated)'],
    ['::7f00:1', 'loopback (IPv4-compatible)'],
    ['64:ff9b::7f00:1', 'loopback (NAT64)'],
    ['2002:7f00:1::1', 'loopback (6to4)'],
    // private, shared, link-local and metadata
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['::ffff:10.1.2.3', 'private (IPv4-mapped)'],
    ['100.64.0.1', 'shared address space (CGNAT)'],
    ['100.127.255.255', 'shared address space (CGNAT)'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['::ffff:169.254.169.254', 'link-local (cloud metadata) (IPv4-mapped)'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['fec0::1', 'site-local'],
    // unspecified, multicast, reserved, benchmarking, documentation
    ['0.0.0.0', 'this network (unspecified)'],
    ['0', 'this network (unspecified)'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['2001:2::1', 'IETF protocol assignments'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['64:ff9b:1::1', 'local-use NAT64'],
    ['100::1', 'discard-only'],
    ['::8.8.8.8', 'IPv4-compatible (deprecated)'],
    ['4000::1', 'reserved (outside 2000::/3)'],
  ])('%s is non-public: %s', (text, rangeName) => {
    expect(classifyIpAddress(text)).toMatchObject({ kind: 'non-public', range: rangeName });
  });

  it.each([
    ['8.8.8.8', '8.8.8.8'],
    ['93.184.216.34', '93.184.216.34'],
    ['172.15.255.255', '172.15.255.255'],
    ['172.32.0.1', '172.32.0.1'],
    ['100.63.255.255', '100.63.255.255'],
    ['100.128.0.1', '100.128.0.1'],
    ['169.253.1.1', '169.253.1.1'],
    ['198.20.0.1', '198.20.0.1'],
    ['223.255.255.255', '223.255.255.255'],
    ['2606:4700:4700::1111', '2606:4700:4700::1111'],
    ['::ffff:8.8.8.8', '::ffff:808:808'],
    ['64:ff9b::8.8.8.8', '64:ff9b::808:808'],
    ['2002:808:808::1', '2002:808:808::1'],
  ])('%s is public (as %s)', (text, normal) => {
    expect(classifyIpAddress(text)).toEqual({ kind: 'public', address: normal });
  });

  it('returns null for host names, so callers resolve them first', () => {
    expect(classifyIpAddress('hooks.example.com')).toBeNull();
  });
});

describe('isLoopbackHostname', () => {
  it.each([
    ['localhost', true],
    ['LOCALHOST.', true],
    ['api.localhost', true],
    ['localhost.example.com', false],
    ['example.com', false],
  ])('%s → %s', (name, expected) => {
    expect(isLoopbackHostname(name)).toBe(expected);
  });
});

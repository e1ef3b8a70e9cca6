// Which IP addresses a server-side request may reach. Outbound requests (webhooks) must not be
// aimed at the server's own network (SSRF): loopback, private, link-local (cloud metadata at
// 169.254.169.254), shared, reserved, multicast and documentation ranges are "non-public".
// Addresses arrive in many spellings (`2130706433`, `0177.0.0.1`, `0x7f.1`, `127.1`,
// `::ffff:127.0.0.1`, `64:ff9b::7f00:1`, `fe80::1%eth0`); each is parsed to its bytes first, and an
// IPv4 address carried inside an IPv6 one is classified as the IPv4 address it reaches.

export type IpAddress = { version: 4 | 6; bytes: number[] };

export type AddressClass =
  | { kind: 'public'; address: string }
  | {
      kind: 'non-public';
      address: string;
      /** the special-purpose range, e.g. `loopback`, `private`, `link-local` */
      range: string;
    };

/**
 * IPv4 the way inet_aton (and so getaddrinfo and the WHATWG URL parser) reads it: 1 to 4 parts,
 * each decimal, octal (leading 0) or hex (0x); the last part fills the remaining bytes.
 * A single trailing dot is allowed. Returns null for anything else.
 */
export function parseIpv4(text: string): number[] | null {
  const trimmed = text.endsWith('.') ? text.slice(0, -1) : text;
  const parts = trimmed.split('.');
  if (parts.length < 1 || parts.length > 4) return null;
  const values: number[] = [];
  for (const part of parts) {
    let value: number;
    if (/^0x[0-9a-f]*$/i.test(part)) value = part.length === 2 ? 0 : parseInt(part.slice(2), 16);
    else if (/^0[0-7]+$/.test(part)) value = parseInt(part.slice(1), 8);
    else if (/^(0|[1-9][0-9]*)$/.test(part)) value = Number(part);
    else return null;
    if (!Number.isSafeInteger(value)) return null;
    values.push(value);
  }
  const last = values.pop()!;
  if (values.some((v) => v > 255)) return null;
  const lastBytes = 4 - values.length;
  if (last >= 256 ** lastBytes) return null;
  const bytes = [...values];
  for (let i = lastBytes - 1; i >= 0; i--) bytes.push(Math.floor(last / 256 ** i) % 256);
  return bytes;
}

/** IPv6 text (brackets and a `%zone` suffix allowed, dotted IPv4 tail allowed) to 16 bytes, or null. */
export function parseIpv6(text: string): number[] | null {
  let s = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const zone = s.indexOf('%');
  if (zone >= 0) {
    if (zone === s.length - 1) return null;
    s = s.slice(0, zone);
  }
  if (!s.includes(':')) return null;
  const lastColon = s.lastIndexOf(':');
  const v4 = s.slice(lastColon + 1);
  if (v4.includes('.')) {
    // only the strict dotted-quad form is valid inside IPv6; it stands for the last two groups
    if (!/^(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}$/.test(v4)) return null;
    const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
    s = `${s.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const toGroups = (h: string): number[] | null => {
    if (h === '') return [];
    const out: number[] = [];
    for (const g of h.split(':')) {
      if (!/^[0-9a-f]{1,4}$/i.test(g)) return null;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = toGroups(halves[0]!);
  const rest = halves.length === 2 ? toGroups(halves[1]!) : [];
  if (!head || !rest) return null;
  let groups: number[];
  if (halves.length === 2) {
    const missing = 8 - head.length - rest.length;
    if (missing < 1) return null;
    groups = [...head, ...new Array<number>(missing).fill(0), ...rest];
  } else {
    if (head.length !== 8) return null;
    groups = head;
  }
  return groups.flatMap((g) => [g >> 8, g & 0xff]);
}

/** An IP address in any spelling, or null when the text is not one (then it is a host name). */
export function parseIpAddress(text: string): IpAddress | null {
  const v6 = parseIpv6(text);
  if (v6) return { version: 6, bytes: v6 };
  const v4 = parseIpv4(text);
  return v4 ? { version: 4, bytes: v4 } : null;
}

export function formatIpAddress(ip: IpAddress): string {
  if (ip.version === 4) return ip.bytes.join('.');
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((ip.bytes[i]! << 8) | ip.bytes[i + 1]!);
  // the longest run (≥ 2) of zero groups becomes '::' (RFC 5952)
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) [bestStart, bestLength] = [i, j - i];
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

interface Range {
  prefix: number[];
  bits: number;
  name: string;
}

const range = (text: string, name: string): Range => {
  const [address, bits] = text.split('/') as [string, string];
  return { prefix: parseIpAddress(address)!.bytes, bits: Number(bits), name };
};

// IANA IPv4 special-purpose registry: every range that is not globally reachable.
const IPV4_NON_PUBLIC: Range[] = [
  range('0.0.0.0/8', 'this network (unspecified)'),
  range('10.0.0.0/8', 'private'),
  range('100.64.0.0/10', 'shared address space (CGNAT)'),
  range('127.0.0.0/8', 'loopback'),
  range('169.254.0.0/16', 'link-local (cloud metadata)'),
  range('172.16.0.0/12', 'private'),
  range('192.0.0.0/24', 'IETF protocol assignments'),
  range('192.0.2.0/24', 'documentation'),
  range('192.31.196.0/24', 'AS112'),
  range('192.52.193.0/24', 'AMT'),
  range('192.88.99.0/24', '6to4 relay anycast'),
  range('192.168.0.0/16', 'private'),
  range('192.175.48.0/24', 'AS112'),
  range('198.18.0.0/15', 'benchmarking'),
  range('198.51.100.0/24', 'documentation'),
  range('203.0.113.0/24', 'documentation'),
  range('224.0.0.0/4', 'multicast'),
  range('240.0.0.0/4', 'reserved'),
];

// IPv6: only 2000::/3 is global unicast; inside it, these are not globally reachable.
const IPV6_NON_PUBLIC: Range[] = [
  range('::/128', 'unspecified'),
  range('::1/128', 'loopback'),
  range('64:ff9b:1::/48', 'local-use NAT64'),
  range('100::/64', 'discard-only'),
  range('2001::/23', 'IETF protocol assignments'),
  range('2001:db8::/32', 'documentation'),
  range('3fff::/20', 'documentation'),
  range('5f00::/16', 'SRv6 SIDs'),
  range('fc00::/7', 'unique-local'),
  range('fe80::/10', 'link-local'),
  range('fec0::/10', 'site-local'),
  range('ff00::/8', 'multicast'),
];

// IPv6 prefixes that carry an IPv4 address, and where it sits: the IPv4 address is what the
// packet reaches (mapped sockets, NAT64, SIIT, 6to4), so it decides.
const IPV4_CARRIERS: { range: Range; offset: number }[] = [
  { range: range('::ffff:0:0/96', 'IPv4-mapped'), offset: 12 },
  { range: range('::ffff:0:0:0/96', 'IPv4-translated'), offset: 12 },
  { range: range('64:ff9b::/96', 'NAT64'), offset: 12 },
  { range: range('2002::/16', '6to4'), offset: 2 },
  { range: range('::/96', 'IPv4-compatible'), offset: 12 },
];

function inRange(bytes: number[], r: Range): boolean {
  if (bytes.length !== r.prefix.length) return false;
  let bits = r.bits;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((bytes[i]! & mask) !== (r.prefix[i]! & mask)) return false;
  }
  return true;
}

function classifyBytes(ip: IpAddress): { public: true } | { public: false; range: string } {
  if (ip.version === 4) {
    const hit = IPV4_NON_PUBLIC.find((r) => inRange(ip.bytes, r));
    return hit ? { public: false, range: hit.name } : { public: true };
  }
  const listed = IPV6_NON_PUBLIC.find((r) => inRange(ip.bytes, r));
  if (listed) return { public: false, range: listed.name };
  const carrier = IPV4_CARRIERS.find((c) => inRange(ip.bytes, c.range));
  if (carrier) {
    const inner = classifyBytes({ version: 4, bytes: ip.bytes.slice(carrier.offset, carrier.offset + 4) });
    if (!inner.public) return { public: false, range: `${inner.range} (${carrier.range.name})` };
    // an IPv4-compatible address is deprecated and reaches nothing public
    return carrier.range.name === 'IPv4-compatible' ? { public: false, range: 'IPv4-compatible (deprecated)' } : { public: true };
  }
  if ((ip.bytes[0]! & 0xe0) !== 0x20) return { public: false, range: 'reserved (outside 2000::/3)' };
  return { public: true };
}

/** Classifies an IP address given in any spelling; null when the text is not an IP address. */
export function classifyIpAddress(text: string): AddressClass | null {
  const ip = parseIpAddress(text);
  if (!ip) return null;
  const address = formatIpAddress(ip);
  const c = classifyBytes(ip);
  return c.public ? { kind: 'public', address } : { kind: 'non-public', address, range: c.range };
}

/**
 * Host names that name this machine whatever DNS says (RFC 6761 `localhost`), compared without
 * case and without the trailing root dot.
 */
export function isLoopbackHostname(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

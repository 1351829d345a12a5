/**
 * IP address parsing and classification for the webhook guard. Pure code
 * (no `node:` imports): an address is 4 or 16 bytes, a range is a prefix of
 * those bytes.
 */

/** An IP address as bytes: 4 for IPv4, 16 for IPv6. */
export type IpBytes = Uint8Array;

/** A CIDR range: the address bytes and how many leading bits must match. */
export interface IpRange {
  readonly bytes: IpBytes;
  readonly prefix: number;
}

/** Parses a dotted-quad IPv4 address (exactly four decimal octets); `undefined` when it is not one. */
export function parseIpv4(text: string): IpBytes | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const part = parts[i]!;
    if (!/^\d{1,3}$/.test(part) || (part.length > 1 && part.startsWith('0'))) return undefined;
    const value = Number(part);
    if (value > 255) return undefined;
    bytes[i] = value;
  }
  return bytes;
}

/** Parses an IPv6 address (with `::`, an embedded IPv4 tail, a `%zone`, or brackets); `undefined` when it is not one. */
export function parseIpv6(text: string): IpBytes | undefined {
  let s = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (!s.includes(':')) return undefined;
  let tail: IpBytes | undefined;
  const lastColon = s.lastIndexOf(':');
  if (s.slice(lastColon + 1).includes('.')) {
    tail = parseIpv4(s.slice(lastColon + 1));
    if (!tail) return undefined;
    s = `${s.slice(0, lastColon + 1)}0:0`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const groups = (half: string) => (half === '' ? [] : half.split(':'));
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...rest];
  const bytes = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    const group = all[i]!;
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return undefined;
    const value = parseInt(group, 16);
    bytes[i * 2] = value >> 8;
    bytes[i * 2 + 1] = value & 0xff;
  }
  if (tail) bytes.set(tail, 12);
  return bytes;
}

/** Parses an IPv4 or IPv6 address; `undefined` when `text` is neither (a host name). */
export function parseIp(text: string): IpBytes | undefined {
  return parseIpv4(text) ?? parseIpv6(text);
}

/** Parses `a.b.c.d/n`, `x::y/n` or a single address (a /32 or /128); throws a TypeError naming the bad entry. */
export function parseRange(text: string): IpRange {
  const slash = text.indexOf('/');
  const bytes = parseIp(slash < 0 ? text : text.slice(0, slash));
  const bits = bytes ? bytes.length * 8 : 0;
  const prefix = slash < 0 ? bits : Number(text.slice(slash + 1));
  if (!bytes || !Number.isInteger(prefix) || prefix < 0 || prefix > bits || (slash >= 0 && !/^\d+$/.test(text.slice(slash + 1)))) {
    throw new TypeError(`${JSON.stringify(text)} is not an IP address or CIDR range (write e.g. 10.0.0.0/8, 127.0.0.1 or fd00::/8)`);
  }
  return { bytes, prefix };
}

/** True when `address` lies in `range` (an IPv4-mapped IPv6 address also matches IPv4 ranges). */
export function inRange(address: IpBytes, range: IpRange): boolean {
  const a = address.length === range.bytes.length ? address : address.length === 16 ? mappedIpv4(address) : undefined;
  if (!a || a.length !== range.bytes.length) return false;
  const whole = range.prefix >> 3;
  for (let i = 0; i < whole; i++) if (a[i] !== range.bytes[i]) return false;
  const bits = range.prefix & 7;
  if (bits === 0) return true;
  const mask = (0xff << (8 - bits)) & 0xff;
  return (a[whole]! & mask) === (range.bytes[whole]! & mask);
}

/** The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`), if it is one. */
function mappedIpv4(bytes: IpBytes): IpBytes | undefined {
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return undefined;
  return bytes[10] === 0xff && bytes[11] === 0xff ? bytes.subarray(12) : undefined;
}

/** Why an address is not a public unicast address. */
export type AddressKind =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'shared (carrier-grade NAT)'
  | 'link-local'
  | 'cloud metadata'
  | 'multicast'
  | 'reserved';

const rules = (list: [string, AddressKind][]) => list.map(([cidr, kind]) => ({ range: parseRange(cidr), kind }));

/** Order matters: the first match names the kind (metadata before link-local). */
const V4_RULES = rules([
  ['0.0.0.0/8', 'unspecified'],
  ['127.0.0.0/8', 'loopback'],
  ['10.0.0.0/8', 'private'],
  ['172.16.0.0/12', 'private'],
  ['192.168.0.0/16', 'private'],
  ['100.64.0.0/10', 'shared (carrier-grade NAT)'],
  ['169.254.169.254/32', 'cloud metadata'],
  ['169.254.0.0/16', 'link-local'],
  ['192.0.0.0/24', 'reserved'],
  ['192.0.2.0/24', 'reserved'],
  ['198.18.0.0/15', 'reserved'],
  ['198.51.100.0/24', 'reserved'],
  ['203.0.113.0/24', 'reserved'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
]);

const V6_RULES = rules([
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['fd00:ec2::254/128', 'cloud metadata'],
  ['fc00::/7', 'private'],
  ['fec0::/10', 'private'],
  ['fe80::/10', 'link-local'],
  ['ff00::/8', 'multicast'],
  ['100::/64', 'reserved'],
  ['2001:db8::/32', 'reserved'],
]);

/** IPv6 prefixes that carry an IPv4 address, and where: mapped, compatible, NAT64, 6to4. */
const EMBEDDING: { range: IpRange; at: number }[] = [
  { range: parseRange('::ffff:0:0/96'), at: 12 },
  { range: parseRange('::/96'), at: 12 },
  { range: parseRange('64:ff9b::/96'), at: 12 },
  { range: parseRange('64:ff9b:1::/48'), at: 12 },
  { range: parseRange('2002::/16'), at: 2 },
];

/**
 * What kind of non-public address `address` is, or `undefined` for a public
 * unicast address. IPv6 forms that embed an IPv4 address (mapped,
 * compatible, NAT64, 6to4) are judged by the IPv4 address inside.
 */
export function classifyAddress(address: IpBytes): AddressKind | undefined {
  if (address.length === 4) return V4_RULES.find((r) => inRange(address, r.range))?.kind;
  const direct = V6_RULES.find((r) => inRange(address, r.range))?.kind;
  if (direct) return direct;
  const embedding = EMBEDDING.find((e) => inRange(address, e.range));
  return embedding ? classifyAddress(address.slice(embedding.at, embedding.at + 4)) : undefined;
}

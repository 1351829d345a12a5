import type { Random } from '../support/random.js';

/** Ids no task has: empty-looking, path tricks, injections, control and exotic characters, and very long ones. */
export function hostileId(random: Random): string {
  const fixed = [
    ' ',
    '../../../../etc/passwd',
    '..%2F..%2Fetc%2Fpasswd',
    "' OR '1'='1' --",
    '<script>alert(1)</script>',
    '${jndi:ldap://127.0.0.1/x}',
    '\u0000',
    'a\u0000b',
    '\ud800',
    '\u202e\u0041\u0042',
    '🦄'.repeat(50),
    '%00%ff',
    'null',
    'undefined',
    '__proto__',
    'constructor',
    '{"id":"x"}',
    '\r\nX-Injected: 1',
  ];
  switch (random.int(0, 3)) {
    case 0:
      return random.pick(fixed);
    case 1:
      return random.string(random.int(1, 64), 'abcdefghijklmnopqrstuvwxyz0123456789-_:/.%?#&=+ ');
    case 2:
      return `${random.pick(fixed)}${random.string(random.int(1, 16), 'xyz09')}`;
    default:
      // Long, but never close to the 16 KiB a request head may have: clearly under it, or clearly over.
      return random.string(random.chance(0.5) ? random.int(5_000, 8_000) : random.int(20_000, 200_000), 'ab');
  }
}

/** A JSON value that is not a string. */
export function notAString(random: Random): unknown {
  return random.pick([0, -1, 1.5, 1e308, true, false, null, [], ['x'], {}, { id: 'x' }]);
}

/** A JSON value that is not an object (for fields that must be objects). */
export function notAnObject(random: Random): unknown {
  return random.pick([0, 'text', true, null, [], [{}], -7.25]);
}

/** A number field's bad value: negative, fractional, out of int32, or not a number at all. */
export function badCount(random: Random): unknown {
  return random.pick([-1, -100, 1.5, 2_147_483_648, 1e20, '10', 'many', true, null, [], {}]);
}

/**
 * A stand-in for a JSON value nested `levels` deep (arrays and objects
 * alternating): {@link toJson} writes it out. Values that deep cannot be
 * built as objects and passed to `JSON.stringify` (it runs out of stack).
 */
export const nested = (levels: number): string => `\u0000nested:${levels}\u0000`;

function nestedJson(levels: number): string {
  const open: string[] = [];
  const close: string[] = [];
  for (let i = 0; i < levels; i++) {
    open.push(i % 2 ? '{"deeper":' : '[');
    close.push(i % 2 ? '}' : ']');
  }
  return `${open.join('')}"bottom"${close.reverse().join('')}`;
}

/** The JSON text of `value`, with every {@link nested} stand-in written out at its depth. */
export function toJson(value: unknown): string {
  return JSON.stringify(value).replace(/"\\u0000nested:(\d+)\\u0000"/g, (_, levels: string) => nestedJson(Number(levels)));
}

/** A nesting depth past the accepted 100 levels: just past it, or far past it. */
export function tooDeep(random: Random): number {
  return random.pick([101, 102, 150, 1_000, 10_000, 100_000]);
}

/** A method or path name no server serves (checked by the caller against the real table). */
export function bogusName(random: Random): string {
  const fixed = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'sendMessage', 'SendMessage ', ' GetTask', 'GETTASK', 'tasks/delete', 'message/sendd', 'rpc.discover', 'system.listMethods', ''];
  return random.chance(0.4) ? random.pick(fixed) : random.string(random.int(1, 40), 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ/._-$');
}

/**
 * An A2A version string this server does not speak: not 1.0 or 0.3, or not
 * Major.Minor at all (a bare `1` included). Not 1.1: a WebSocket connection
 * may ask for it (the service then serves or refuses each call).
 */
export function badVersion(random: Random): string {
  return random.pick(['2.0', '0.2', '1.2', '1', '0', '3', 'abc', 'v1', '1.0-beta', '1.0.', '0.4', '10.0', '.', '-1', '1..0', '99999999999999999999']);
}

/**
 * Bytes that are not UTF-8 (RFC 3629): a lone continuation byte, bytes
 * that never occur, an overlong encoding, a surrogate, a code point past
 * U+10FFFF, a sequence cut short.
 */
export function invalidUtf8(random: Random): { name: string; bytes: Buffer } {
  const [name, bytes] = random.pick<[string, number[]]>([
    ['a lone continuation byte', [0x80]],
    ['byte 0xff', [0xff]],
    ['byte 0xfe', [0xfe]],
    ['an overlong "/"', [0xc0, 0xaf]],
    ['a bad second byte', [0xc3, 0x28]],
    ['an encoded surrogate', [0xed, 0xa0, 0x80]],
    ['a code point past U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
    ['a three-byte sequence cut short', [0xe2, 0x82]],
  ]);
  return { name, bytes: Buffer.from(bytes) };
}

/** `json` (a JSON text containing `"@@"`) with that placeholder's contents replaced by `bad` bytes, inside a string value. */
export function withBytes(json: string, bad: Buffer): Buffer {
  const at = json.indexOf('@@');
  return Buffer.concat([Buffer.from(json.slice(0, at)), bad, Buffer.from(json.slice(at + 2))]);
}

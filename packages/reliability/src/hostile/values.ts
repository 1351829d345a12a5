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

/** An A2A version string this server does not speak (neither 1.x nor 0.3). */
export function badVersion(random: Random): string {
  return random.pick(['2.0', '0.2', '1.1', '3', 'abc', 'v1', '1.0-beta', '0.4', '10.0', '.', '-1', '1..0', '99999999999999999999']);
}

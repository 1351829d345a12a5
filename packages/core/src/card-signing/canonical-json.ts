/**
 * RFC 8785 JSON Canonicalization Scheme (JCS): object keys sorted by their
 * UTF-16 code units, no whitespace, and strings and numbers written exactly
 * as ECMAScript's `JSON.stringify` writes them (which is what JCS specifies).
 */

/**
 * Serializes a JSON value in RFC 8785 canonical form.
 *
 * Accepts what `JSON.parse` produces: `null`, booleans, finite numbers,
 * strings, arrays and plain objects. Object members whose value is
 * `undefined` are skipped (as `JSON.stringify` does). Throws a `TypeError`
 * for anything JSON cannot carry (`NaN`, `Infinity`, `bigint`, functions,
 * symbols, `undefined` in an array or at the top).
 */
export function canonicalJson(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'string':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`JCS cannot encode the number ${value}`);
      return JSON.stringify(value);
    case 'object':
      if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
      return canonicalObject(value as Record<string, unknown>);
    default:
      throw new TypeError(`JCS cannot encode a value of type ${typeof value}`);
  }
}

function canonicalObject(object: Record<string, unknown>): string {
  // Array.prototype.sort without a comparator orders strings by UTF-16 code
  // units, which is the order RFC 8785 section 3.2.3 asks for.
  const keys = Object.keys(object)
    .filter((key) => object[key] !== undefined)
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(object[key])}`).join(',')}}`;
}

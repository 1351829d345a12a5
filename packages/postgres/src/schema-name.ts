/** The schema Taskwire's tables live in when none is given. */
export const DEFAULT_SCHEMA = 'taskwire';

/** PostgreSQL truncates identifiers past 63 bytes; a longer schema name would silently name another schema. */
const MAX_IDENTIFIER_BYTES = 63;

/**
 * Checks a schema name and returns it as a quoted SQL identifier (`"name"`,
 * inner quotes doubled), safe to splice into SQL text. Any name PostgreSQL
 * accepts is allowed (mixed case, spaces, quotes); an empty name, a NUL byte
 * or more than 63 bytes is a TypeError saying so.
 */
export function quoteSchema(schema: string): string {
  if (typeof schema !== 'string' || schema.length === 0) throw new TypeError('schema must be a non-empty string');
  if (schema.includes('\0')) throw new TypeError('schema must not contain a NUL character');
  if (Buffer.byteLength(schema) > MAX_IDENTIFIER_BYTES) {
    throw new TypeError(`schema must be at most ${MAX_IDENTIFIER_BYTES} bytes long (PostgreSQL would truncate it): ${JSON.stringify(schema)}`);
  }
  return `"${schema.replace(/"/g, '""')}"`;
}

/** Names given to statement texts so far (one process-wide numbering: a name never stands for two texts). */
const statementNames = new Map<string, string>();

/**
 * A pg query config for `text` as a named (prepared) statement: each
 * connection parses and plans it once, later calls only bind and execute.
 * The same text always gets the same name, different texts never share one.
 */
export function prepared(text: string, values: unknown[]): { name: string; text: string; values: unknown[] } {
  let name = statementNames.get(text);
  if (name === undefined) statementNames.set(text, (name = `taskwire_${statementNames.size + 1}`));
  return { name, text, values };
}

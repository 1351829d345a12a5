import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import * as schemas from './index.js';

/**
 * One wire message of the corpus in `fixtures/valid` (must parse) or
 * `fixtures/invalid` (must fail):
 * - `schema`: the name of a schema exported from `schema/index.ts`;
 * - `why`: one line saying what the fixture pins down;
 * - `value`: the JSON on the wire;
 * - `expected` (valid only): the parse result when it differs from `value`
 *   (unknown fields dropped, a transform applied); otherwise parsing must
 *   return an object equal to `value`;
 * - `path` (invalid only): the dotted path of the first issue (`""` = the root);
 * - `message` (invalid only): a fragment the first issue's message contains.
 */
interface Fixture {
  readonly schema: string;
  readonly why: string;
  readonly value: unknown;
  readonly expected?: unknown;
  readonly path?: string;
  readonly message?: string;
}

const FIXTURE_KEYS = {
  valid: ['schema', 'why', 'value', 'expected'],
  invalid: ['schema', 'why', 'value', 'path', 'message'],
} as const;

type Kind = keyof typeof FIXTURE_KEYS;

function load(kind: Kind): Array<[string, Fixture]> {
  const dir = fileURLToPath(new URL(`./fixtures/${kind}/`, import.meta.url));
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => [file, JSON.parse(readFileSync(dir + file, 'utf8')) as Fixture]);
}

const exported = schemas as Record<string, unknown>;

function schemaNamed(name: string): z.ZodType {
  const schema = exported[name];
  if (!(schema instanceof z.ZodType)) throw new Error(`${name} is not a zod schema exported from schema/index.ts`);
  return schema;
}

function issuePath(error: z.ZodError): string {
  return error.issues[0]?.path.join('.') ?? '<no issues>';
}

const valid = load('valid');
const invalid = load('invalid');

describe('fixture corpus', () => {
  it('is big enough to mean something', () => {
    expect(valid.length).toBeGreaterThanOrEqual(40);
    expect(invalid.length).toBeGreaterThanOrEqual(40);
  });

  it.each([...valid.map(([f, x]) => ['valid', f, x] as const), ...invalid.map(([f, x]) => ['invalid', f, x] as const)])(
    '%s/%s is well formed',
    (kind, file, fixture) => {
      expect(file).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*\.json$/);
      expect(Object.keys(fixture).filter((k) => !(FIXTURE_KEYS[kind] as readonly string[]).includes(k))).toStrictEqual([]);
      expect(fixture.why, 'every fixture says why it exists').toMatch(/\S/);
      expect('value' in fixture).toBe(true);
      expect(() => schemaNamed(fixture.schema)).not.toThrow();
    },
  );

  it('has a valid fixture for every exported schema', () => {
    const covered = new Set(valid.map(([, fixture]) => fixture.schema));
    const missing = Object.keys(exported)
      .filter((name) => exported[name] instanceof z.ZodType)
      .filter((name) => !covered.has(name));
    expect(missing, 'add a fixture under src/schema/fixtures/valid for each of these').toStrictEqual([]);
  });
});

describe('valid fixtures parse', () => {
  it.each(valid)('%s', (_file, fixture) => {
    const schema = schemaNamed(fixture.schema);
    const result = schema.safeParse(fixture.value);
    if (!result.success) throw new Error(`${fixture.schema} rejected it (${fixture.why}):\n${z.prettifyError(result.error)}`);
    if ('expected' in fixture) {
      expect(result.data).toEqual(fixture.expected);
      // on the wire (JSON) the result is exactly the expected value
      expect(JSON.parse(JSON.stringify(result.data))).toStrictEqual(fixture.expected);
    } else {
      expect(result.data).toStrictEqual(fixture.value);
    }
    // parsing is idempotent: the parsed value is itself a valid wire value that parses to itself
    expect(schema.parse(result.data)).toStrictEqual(result.data);
  });
});

describe('invalid fixtures fail', () => {
  it.each(invalid)('%s', (_file, fixture) => {
    const result = schemaNamed(fixture.schema).safeParse(fixture.value);
    if (result.success) throw new Error(`${fixture.schema} accepted it, but ${fixture.why}`);
    if (fixture.path !== undefined) expect(issuePath(result.error), z.prettifyError(result.error)).toBe(fixture.path);
    if (fixture.message !== undefined) expect(result.error.issues[0]?.message).toContain(fixture.message);
  });
});

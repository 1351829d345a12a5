import type { MethodName } from '@taskwire/core';
import { METHODS, protoJsonField } from '@taskwire/core';

/** The JSON type a query value must become for a params field, found by looking through the schema's wrappers. */
type FieldType = 'number' | 'boolean' | 'array' | 'string';

interface ZodLike {
  readonly _zod?: { readonly def: { readonly type: string; readonly innerType?: ZodLike; readonly in?: ZodLike; readonly options?: readonly ZodLike[] } };
  readonly shape?: Record<string, ZodLike>;
}

function fieldType(schema: ZodLike | undefined): FieldType {
  const def = schema?._zod?.def;
  if (!def) return 'string';
  switch (def.type) {
    case 'number':
    case 'int':
    case 'bigint':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'array':
      return 'array';
    case 'optional':
    case 'nullable':
    case 'default':
    case 'readonly':
    case 'nonoptional':
      return fieldType(def.innerType);
    case 'pipe':
      return fieldType(def.in);
    case 'union': {
      const types = new Set((def.options ?? []).map(fieldType));
      return types.size === 1 ? [...types][0]! : 'string';
    }
    default:
      return 'string';
  }
}

/** Per method: the type of each params field, read once from the method table's schemas. */
const FIELD_TYPES = new Map<MethodName, Record<string, FieldType>>();

function fieldTypes(method: MethodName): Record<string, FieldType> {
  let types = FIELD_TYPES.get(method);
  if (!types) {
    const shape = (METHODS[method].params as ZodLike).shape ?? {};
    types = Object.fromEntries(Object.entries(shape).map(([name, schema]) => [name, fieldType(schema)]));
    FIELD_TYPES.set(method, types);
  }
  return types;
}

const NUMBER = /^-?\d+(\.\d+)?$/;
const ENUM_NUMBER = /^\d+$/;

/**
 * The params of a GET or DELETE call from its query string (§11.5): names
 * are the camelCase JSON names (the proto field names are read too, as in
 * bodies), numbers are decimal strings, booleans `true`/`false`, enums their
 * names or numbers, repeated fields repeat the name or separate values with
 * commas. A value that does not have the field's type is passed on as a
 * string, so validation names the field and what is wrong. Names are kept
 * as given: the service reads both spellings (and refuses a field given
 * under both). `A2A-Version` is a service parameter, not a field, and is
 * left out.
 */
export function queryParams(method: MethodName, query: string): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  if (query === '') return params;
  const types = fieldTypes(method);
  const search = new URLSearchParams(query);
  for (const name of new Set(search.keys())) {
    if (name.toLowerCase() === 'a2a-version') continue;
    const values = search.getAll(name);
    const value = values[values.length - 1]!;
    const field = protoJsonField(method, name);
    if (field?.kind === 'enum' && ENUM_NUMBER.test(value)) {
      params[name] = Number(value);
      continue;
    }
    switch (types[field?.json ?? name]) {
      case 'number':
        params[name] = NUMBER.test(value) ? Number(value) : value;
        break;
      case 'boolean':
        params[name] = value === 'true' ? true : value === 'false' ? false : value;
        break;
      case 'array':
        params[name] = values.flatMap((v) => v.split(',')).filter((v) => v !== '');
        break;
      default:
        params[name] = value;
    }
  }
  return params;
}

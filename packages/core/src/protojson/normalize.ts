import { fieldViolations } from '../errors.js';
import type { MethodName } from '../methods.js';
import type { ProtoFieldKind } from './proto-field.js';
import { PROTO_ENUMS, PROTO_MESSAGES, PROTO_REQUESTS } from './proto-fields.js';

/** One field as the reader looks it up (under either of its names). */
interface FieldPlan {
  /** The JSON (lowerCamel) name: the one the service reads. */
  readonly json: string;
  readonly kind: ProtoFieldKind;
  /** An enum's value names by number. */
  readonly names: Readonly<Record<number, string>> | undefined;
  /** A message field's fields (set once every plan exists). */
  message: MessagePlan | undefined;
}

/** A message's fields by proto name and by JSON name (a prototype-free lookup table). */
type MessagePlan = Readonly<Record<string, FieldPlan>>;

let plans: ReadonlyMap<string, MessagePlan> | undefined;

/** Every message's plan, built on first use, message fields linked to their types' plans. */
function allPlans(): ReadonlyMap<string, MessagePlan> {
  if (plans) return plans;
  const built = new Map<string, Record<string, FieldPlan>>();
  const links: [FieldPlan, string][] = [];
  for (const [typeName, fields] of Object.entries(PROTO_MESSAGES)) {
    const table: Record<string, FieldPlan> = Object.create(null);
    for (const [protoName, json, kind, type] of fields) {
      const field: FieldPlan = { json, kind, names: kind === 'enum' ? PROTO_ENUMS[type!] : undefined, message: undefined };
      if (kind === 'message') links.push([field, type!]);
      table[json] = field;
      table[protoName] = field;
    }
    built.set(typeName, table);
  }
  for (const [field, type] of links) field.message = built.get(type);
  plans = built;
  return plans;
}

/** Thrown inside the walk when a field is given under both names ({@link whereBothNames} then finds which). */
const BOTH_NAMES = Symbol('both names');

/** What a field reads as when it is "not set" (a proto3 string given as `""`). */
const UNSET = Symbol('unset');

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An enum value: a number becomes its name (an unknown number stays, for validation to report). */
function enumName(value: unknown, names: Readonly<Record<number, string>>): unknown {
  return typeof value === 'number' ? (names[value] ?? value) : value;
}

/** Each item of a list field read as `field` reads one value; the same array when nothing changed. */
function readList(items: unknown[], field: FieldPlan): unknown[] {
  let out: unknown[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const next = field.kind === 'enum' ? enumName(item, field.names!) : isRecord(item) ? readMessage(item, field.message!) : item;
    if (next !== item) (out ??= items.slice())[i] = next;
  }
  return out ?? items;
}

function readField(raw: unknown, field: FieldPlan): unknown {
  switch (field.kind) {
    case 'string':
      return raw === '' ? UNSET : raw;
    case 'enum':
    case 'message':
      if (Array.isArray(raw)) return readList(raw, field);
      if (field.kind === 'enum') return enumName(raw, field.names!);
      return isRecord(raw) ? readMessage(raw, field.message!) : raw;
    default:
      return raw;
  }
}

/**
 * One message read field by field. Copy on write: an object that needs no
 * change is returned as it is, so a request already in the canonical form
 * costs one table lookup per field and no allocation (no path is kept
 * either: the rare refusal finds its field afterwards).
 */
function readMessage(value: Record<string, unknown>, plan: MessagePlan): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const key in value) {
    const field = plan[key];
    if (field === undefined) continue;
    const raw = value[key];
    const read = readField(raw, field);
    const renamed = key !== field.json;
    if (!renamed && read === raw) continue;
    if (renamed && Object.hasOwn(value, field.json)) throw BOTH_NAMES;
    out ??= { ...value };
    if (renamed) delete out[key];
    if (read === UNSET) delete out[field.json];
    else out[field.json] = read;
  }
  return out ?? value;
}

/**
 * The params of `method` read the way protobuf's JSON parsers read a
 * request (ProtoJSON, as A2A's JSON bindings use it), in the one canonical
 * form the service validates:
 * - a field may be named by its JSON name or its proto field name
 *   (`historyLength` or `history_length`, `taskId` or `task_id`); naming
 *   one field both ways is InvalidParams;
 * - an enum may be given by name or by number (`"role": 1` is `ROLE_USER`);
 * - a proto3 string field without presence given as `""` is not set
 *   (`message.taskId: ""` starts a new task, `contextId: ""` a new context).
 *
 * Free-form values (metadata, data parts, maps) are left as they are. The
 * result is `params` itself when it is already canonical; otherwise a copy
 * of the objects that change (the input is never modified). Values that are
 * not the shape the proto declares are passed on for validation to report.
 */
export function readProtoJsonParams(method: MethodName, params: unknown): unknown {
  const plan = requestPlan(method);
  if (plan === undefined || !isRecord(params)) return params;
  try {
    return readMessage(params, plan);
  } catch (error) {
    if (error !== BOTH_NAMES) throw error;
    const [path, json, proto] = whereBothNames(params, plan, '')!;
    throw fieldViolations([{ field: path, description: `given twice, as "${json}" and as "${proto}"; send it once (the JSON name "${json}" is preferred)` }]);
  }
}

/** The first field of `value` (at any depth) given under both its names: its path and the two names. */
function whereBothNames(value: Record<string, unknown>, plan: MessagePlan, at: string): [path: string, json: string, proto: string] | undefined {
  for (const key in value) {
    const field = plan[key];
    if (field === undefined) continue;
    const path = at === '' ? field.json : `${at}.${field.json}`;
    if (key !== field.json && Object.hasOwn(value, field.json)) return [path, field.json, key];
    if (field.kind !== 'message') continue;
    const raw = value[key];
    const items = Array.isArray(raw) ? raw : [raw];
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      const found = isRecord(item) ? whereBothNames(item, field.message!, Array.isArray(raw) ? `${path}[${i}]` : path) : undefined;
      if (found) return found;
    }
  }
  return undefined;
}

/** The plan of `method`'s request message, if the proto declares the rpc. */
function requestPlan(method: MethodName): MessagePlan | undefined {
  const type = PROTO_REQUESTS[method];
  return type === undefined ? undefined : allPlans().get(type);
}

/**
 * A top-level field of `method`'s request named by either of its names: its
 * JSON name and kind, or `undefined` when the request has no such field
 * (e.g. for reading query parameters, which carry only top-level fields).
 */
export function protoJsonField(method: MethodName, name: string): { readonly json: string; readonly kind: ProtoFieldKind } | undefined {
  return requestPlan(method)?.[name];
}

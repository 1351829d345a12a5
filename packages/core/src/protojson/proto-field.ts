/**
 * How the edge treats a field when it reads ProtoJSON:
 * - `string`: a proto3 string without presence, where `""` means "not set";
 * - `enum`: an enum (or a list of one), given by name or by number;
 * - `message`: a message of the request model (or a list of them), read field by field;
 * - `other`: anything else (scalars with presence, repeated scalars, maps,
 *   well-known types such as Struct): only its name is read.
 */
export type ProtoFieldKind = 'string' | 'enum' | 'message' | 'other';

/** One field of the generated table: proto name, JSON name, kind, and the enum or message type it refers to. */
export type ProtoField = readonly [protoName: string, jsonName: string, kind: ProtoFieldKind, type?: string];

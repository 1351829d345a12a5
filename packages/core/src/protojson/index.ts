export type { ProtoField, ProtoFieldKind } from './proto-field.js';
export { protoJsonField, readProtoJsonParams } from './normalize.js';

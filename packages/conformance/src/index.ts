export * from './harness.js';
export * from './requirement.js';
export * from './suite.js';
export { NOT_PROTOJSON_ON_GRPC, notProtoJson } from './requirements/protojson.js';

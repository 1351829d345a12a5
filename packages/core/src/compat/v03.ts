/**
 * A2A v0.3 compatibility: the v0.3 JSON shapes and the converters between
 * them and Taskwire's v1.0 model, in both directions (servers read v0.3
 * params and answer v0.3 results; clients do the reverse).
 */
export * from './v03-types.js';
export { DATA_PART_COMPAT_FLAG, artifactToV03, artifactToV1, messageToV03, messageToV1, partToV03, partToV1, roleToV03, roleToV1 } from './v03-messages.js';
export * from './v03-tasks.js';
export * from './v03-card.js';
export * from './v03-params.js';
export * from './v03-results.js';

/**
 * Two of the A2A sample extensions (a2a-samples' Timestamp and
 * Traceability) on Taskwire's extension API: wrappers that activate the
 * extension when a request asks for it and add its fields to what the
 * agent sends.
 */
export * from './timestamp.js';
export * from './traceability.js';
export { mapEvents, withExtensionFields } from './wrap-events.js';

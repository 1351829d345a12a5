export * from './call-context.js';
export * from './task-stream.js';
export * from './service-options.js';
export * from './task-service.js';
export { TaskEngine, TransitionFailure } from './task-engine.js';
export type { Applied } from './task-engine.js';
export { EventHub, Subscription } from './event-hub.js';
export { KeyedLock } from './keyed-lock.js';
export type { Logger, RunInput } from './agent-run.js';

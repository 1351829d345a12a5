export { fromA2AExecutor } from './from-executor.js';
export type { FromA2AExecutorOptions } from './from-executor.js';
export { AdapterEventBus } from './event-bus.js';
export { fromJsMessage, fromJsPart, fromJsArtifact, fromJsState, toJsMessage, toJsPart, toJsArtifact, toJsTask, toJsState } from './shapes.js';
export { copyA2AJsTasks, taskOfA2AJsRow } from './copy-tasks.js';
export type { A2AJsTaskRow, A2AJsTaskSource, CopyA2AJsTasksOptions, CopyA2AJsTasksResult } from './copy-tasks.js';

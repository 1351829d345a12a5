export { fromA2AExecutor } from './from-executor.js';
export type { FromA2AExecutorOptions, FromA2AExecutorV03Options } from './from-executor.js';
export type { V03AgentExecutor, V03ExecutionEventBus, V03RequestContext } from './v03-executor.js';
export { AdapterEventBus } from './event-bus.js';
export { fromJsMessage, fromJsPart, fromJsArtifact, fromJsState, toJsMessage, toJsPart, toJsArtifact, toJsTask, toJsState } from './shapes.js';
export { copyA2AJsTasks, taskOfA2AJsRow } from './copy-tasks.js';
export type { A2AJsTaskRow, A2AJsTaskSource, CopyA2AJsTasksOptions, CopyA2AJsTasksResult } from './copy-tasks.js';

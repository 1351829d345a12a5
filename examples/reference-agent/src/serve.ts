// The reference setup for other agents (examples/ai-sdk-agent): every transport, the page, the options.
export { serveAll } from './serve-all.js';
export type { RunningAgent } from './serve-all.js';
export { parseOptions, USAGE } from './options.js';
export type { AgentOptions } from './options.js';
export { consoleLogger } from './console-logger.js';
export { optionsOrExit, stopOnSignals, urlLines } from './command-line.js';

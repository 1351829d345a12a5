// The reference setup for other agents (examples/*-agent): every transport, the page, the options.
export { serveAll } from './serve-all.js';
export type { RunningAgent } from './serve-all.js';
export { parseOptions, USAGE } from './options.js';
export type { AgentOptions } from './options.js';
export { consoleLogger } from './console-logger.js';
export { optionsOrExit, stopOnSignals, urlLines } from './command-line.js';
export { exampleCard, serveExample } from './example-main.js';
export type { Example } from './example-main.js';

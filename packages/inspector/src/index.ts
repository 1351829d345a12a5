/**
 * `@taskwire/inspector`: `taskwire inspect`, a local web page that
 * inspects any A2A agent (v1.0 or v0.3) through `@taskwire/client`: the
 * card and its problems, every transport probed, live conversations with
 * their raw events, tasks, and a check battery usable in CI. Node only.
 */
export { startInspector } from './server.js';
export type { InspectorOptions, RunningInspector } from './server.js';
export { runInspect, INSPECT_USAGE } from './inspect-command.js';
export type { InspectIo } from './inspect-command.js';
export { inspectCard } from './card-report.js';
export type { CardReport, TransportChoice } from './card-report.js';
export type { CardProblem } from './card-problems.js';
export { probeInterfaces } from './probe.js';
export type { InterfaceProbe } from './probe.js';
export { runChecks } from './checks.js';
export type { CheckOptions, CheckResult } from './checks.js';
export { Timeline } from './timeline.js';
export type { TimelineEntry } from './timeline.js';
export { clientFor, INSPECTOR_TRANSPORTS } from './transports.js';
export type { Credentials } from './transports.js';

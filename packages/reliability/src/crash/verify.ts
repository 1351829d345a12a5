import type { Task, TaskStore } from '@taskwire/core';
import { isTerminal } from '@taskwire/core';
import { FileTaskStore } from '@taskwire/core/file';
import { drain, logProblems, numbered, occurrences } from '../support/lifecycle-check.js';
import type { Random } from '../support/random.js';
import type { TransportSet } from '../support/transports.js';
import { BINDINGS } from '../support/transports.js';
import type { AckLog, AckedTask } from './acked.js';

/** The status message of a task the restarted service failed because a killed run left it running. */
export const RECOVERED = /The server stopped while this task was running/;

/** A liveness bound for one resumed stream (the `slow` tasks of the load end within a second). */
const RESUME_LIMIT_MS = 30_000;

/** What a look at the store's files found. */
export interface StoreCheck {
  readonly problems: string[];
  /** The store truncated a torn tail (a record cut by the kill, never acknowledged). */
  readonly tornTail: boolean;
  readonly tasks: number;
}

/** What every acknowledged task must still be, given the task now stored (or listed). Returns the problems. */
export function ackProblems(acked: AckedTask, task: Task | undefined): string[] {
  if (!task) return [`task ${acked.taskId} was acknowledged but is gone`];
  const problems: string[] = [];
  for (const messageId of acked.messages) {
    const count = occurrences(task, messageId);
    if (count !== 1) problems.push(`task ${acked.taskId}: acknowledged message ${messageId} is in its history ${count} times`);
  }
  if (isTerminal(acked.state) && task.status.state !== acked.state) {
    problems.push(`task ${acked.taskId} was acknowledged ${acked.state} but is now ${task.status.state}`);
  }
  return problems;
}

/** What {@link checkTasks} found. */
export interface TaskCheck {
  readonly problems: string[];
  readonly tasks: number;
}

/**
 * Reads back what a killed server left in `store` (anonymous owner): every
 * acknowledged task must be there with every acknowledged message exactly
 * once, and every task's event log must be sound (contiguous, legal
 * transitions, ending in the task's state). `takeOverGaps` (a clustered
 * PostgreSQL server, whose restart takes its predecessor's tasks over): the
 * task itself may skip ahead, as a task taken over from a gone process is
 * settled after a gap (see `TAKE_OVER_SEQUENCE_GAP`; a sweep of its own rows too).
 */
export async function checkTasks(store: TaskStore, acked: AckLog, takeOverGaps = false): Promise<TaskCheck> {
  const problems: string[] = [];
  let tasks = 0;
  for (const a of acked.tasks.values()) problems.push(...ackProblems(a, (await store.get(a.taskId))?.task));
  for (let pageToken = ''; ; ) {
    const page = await store.list({ owner: '', pageSize: 100, pageToken: pageToken || undefined, historyLength: 0 });
    for (const task of page.tasks) {
      tasks++;
      const events = (await store.readEvents(task.id, 0)).map(numbered);
      for (const problem of logProblems(events, { finalState: task.status.state, snapshots: takeOverGaps })) problems.push(`task ${task.id}: ${problem}`);
    }
    if (!(pageToken = page.nextPageToken)) break;
  }
  return { problems, tasks };
}

/**
 * Opens the killed server's directory with a FileTaskStore in this process
 * (the server is dead, its lock is stale): every acknowledged task must be
 * there with every acknowledged message exactly once, every task's event
 * log must be sound (contiguous, legal transitions, ending in the task's
 * state; see {@link checkTasks}). The only repairs allowed are the stale
 * lock and a torn tail; a second open must find nothing to repair at all.
 */
export async function checkStore(dir: string, acked: AckLog): Promise<StoreCheck> {
  const warnings: string[] = [];
  const store = await FileTaskStore.open(dir, { logger: { warn: (_fields, message) => warnings.push(message ?? '') } });
  let checked: TaskCheck;
  try {
    checked = await checkTasks(store, acked);
  } finally {
    await store.close();
  }
  const { problems, tasks } = checked;
  const tornTail = warnings.some((w) => /torn or corrupt tail/.test(w));
  for (const w of warnings) if (!/torn or corrupt tail|took over a lock/.test(w)) problems.push(`unexpected repair on open: ${w}`);
  const again: string[] = [];
  await (await FileTaskStore.open(dir, { logger: { warn: (_fields, message) => again.push(message ?? '') } })).close();
  for (const w of again) problems.push(`the log still needed a repair after it was reopened: ${w}`);
  return { problems, tornTail, tasks };
}

/** What the restarted server showed over the wire. */
export interface WireCheck {
  readonly problems: string[];
  /** Tasks the restart failed because a kill left them running (all so far). */
  readonly recovered: readonly string[];
  /** Cut streams resumed with `afterSequence`. */
  readonly resumed: number;
}

/**
 * Checks the restarted server from the client side: ListTasks (every page,
 * full history, on a random binding each) shows every acknowledged task
 * with its messages once and no task left submitted or working; each
 * stream the kill cut resumes with SubscribeToTask `afterSequence` right
 * after the last event it delivered and runs to the task's end. The acked
 * states are refreshed from what the server says (a continuation in flight
 * at the kill may have moved a task on). `takeOverGaps`: as for
 * {@link checkTasks} (a resumed stream gets the task, skipping ahead, for
 * the events past the gap's start).
 */
export async function checkOverWire(transports: TransportSet, acked: AckLog, random: Random, takeOverGaps = false): Promise<WireCheck> {
  const problems: string[] = [];
  const listed = new Map<string, Task>();
  for (let pageToken = ''; ; ) {
    const transport = transports.get(random.pick(BINDINGS));
    const page = await transport.unary('ListTasks', { pageSize: 100, ...(pageToken && { pageToken }) });
    for (const task of page.tasks) listed.set(task.id, task);
    if (!(pageToken = page.nextPageToken)) break;
  }
  const recovered: string[] = [];
  for (const task of listed.values()) {
    if (task.status.state === 'TASK_STATE_SUBMITTED' || task.status.state === 'TASK_STATE_WORKING') {
      problems.push(`task ${task.id} is still ${task.status.state} after the restart`);
    }
    const said = task.status.message?.parts.map((p) => ('text' in p ? p.text : '')).join('') ?? '';
    if (task.status.state === 'TASK_STATE_FAILED' && RECOVERED.test(said)) recovered.push(task.id);
  }
  for (const a of acked.tasks.values()) {
    const task = listed.get(a.taskId);
    problems.push(...ackProblems(a, task));
    if (task) a.state = task.status.state;
  }
  let resumed = 0;
  for (const a of acked.cut()) {
    const after = a.cutAt!;
    a.cutAt = undefined;
    const end = listed.get(a.taskId)?.status.state;
    // A task still running after the restart is reported above; following it would wait forever.
    if (end === undefined || end === 'TASK_STATE_SUBMITTED' || end === 'TASK_STATE_WORKING') continue;
    const binding = random.pick(BINDINGS);
    const stream = transports.get(binding).stream('SubscribeToTask', { id: a.taskId, afterSequence: after }, { timeoutMs: RESUME_LIMIT_MS });
    const { events, error } = await drain(stream);
    const where = `resuming task ${a.taskId} after ${after} over ${binding}`;
    if (error) problems.push(`${where} failed: ${error instanceof Error ? error.message : String(error)}`);
    for (const problem of logProblems(events, { firstSequence: after + 1, finalState: end, snapshots: takeOverGaps })) problems.push(`${where}: ${problem}`);
    if (events.length === 0 && !error) problems.push(`${where}: no event at all`);
    resumed++;
  }
  return { problems, recovered, resumed };
}

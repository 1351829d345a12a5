import type { StreamResponse, Task, TaskState } from '../../schema/task.js';
import { replayEvents } from '../replay-events.js';
import type { IndexedTaskFields } from '../list-tasks.js';

/**
 * Log records. A payload is lines joined by `\n` (JSON never contains a raw
 * newline): a metadata object, then for commits and snapshots the task's JSON
 * and one line per event's JSON. Keeping task and events as JSON text means
 * reopening never parses them, and reads parse them afresh (a private copy).
 *
 * - `h`: the header, first record of every log file.
 * - `c`: a commit: the task at version `v`, events numbered from `s`. With
 *   `a` (an append-only commit, `CommitRequest.appendOnly`) the task line is
 *   empty: the task is the previous one with the events reduced onto it.
 * - `s`: a snapshot of one task (written by compaction): version `v`, last
 *   sequence `l`, the events it still keeps, of which the last `p` (when
 *   set) come after its task JSON.
 * - `d`: a delete.
 *
 * Replay is idempotent (a commit whose version is not newer than the task's
 * is skipped), so a snapshot taken while commits go on, followed by those
 * commits, yields the right state.
 */
export const LOG_FORMAT = 2;
/** Formats this version reads: 1 (before append-only commits) and its own. */
const READABLE_FORMATS = [1, LOG_FORMAT];

interface Fields {
  readonly id: string;
  readonly o: string;
  readonly v: number;
  readonly ctx: string;
  readonly st: TaskState;
  readonly ts?: string | undefined;
  /** The creating request's trace context (`CommitRequest.trace`): on the creating commit and on snapshots. */
  readonly tr?: string | undefined;
}
type Meta =
  | { readonly t: 'h'; readonly format: number }
  | ({ readonly t: 'c'; readonly s: number; readonly a?: 1 } & Fields)
  | ({ readonly t: 's'; readonly l: number; readonly p?: number } & Fields)
  | { readonly t: 'd'; readonly id: string };

/** One task as the file store holds it in memory. */
export interface LiveTask {
  readonly owner: string;
  readonly version: number;
  readonly lastSequence: number;
  /** The task's JSON. */
  readonly task: string;
  /** JSON of the newest events, contiguous, ending at `lastSequence`. */
  readonly events: string[];
  /** Sum of the events' JSON lengths. */
  eventChars: number;
  /** How many of the last `events` come after `task` (logged by append-only commits): reads reduce them onto it. */
  readonly pending: number;
  readonly fields: IndexedTaskFields;
  /** The creating request's trace context, if it had one. */
  readonly trace?: string | undefined;
}

/** What a commit record carries (the task and events already as JSON). */
export interface CommitInput {
  readonly id: string;
  readonly owner: string;
  readonly version: number;
  readonly firstSequence: number;
  /** Undefined for an append-only commit: the task is the previous one with `events` reduced onto it. */
  readonly task: string | undefined;
  readonly events: readonly string[];
  readonly fields: IndexedTaskFields;
  /** Set on a task's creating commit when the request had a trace context. */
  readonly trace?: string | undefined;
}

function metaFields(id: string, owner: string, version: number, fields: IndexedTaskFields, trace: string | undefined): Fields {
  return { id, o: owner, v: version, ctx: fields.contextId, st: fields.status.state, ts: fields.status.timestamp, tr: trace };
}

/** A fresh copy of the task `live` holds: its JSON, with its pending events reduced onto it. */
export function taskOfLive(live: LiveTask): Task {
  const task = JSON.parse(live.task) as Task;
  if (live.pending === 0) return task;
  return replayEvents(task, live.events.slice(live.events.length - live.pending).map((event) => JSON.parse(event) as StreamResponse));
}

/** The header payload. */
export function headerPayload(): string {
  return JSON.stringify({ t: 'h', format: LOG_FORMAT });
}

/** A commit record's payload. */
export function commitPayload(c: CommitInput): string {
  const meta = { t: 'c', s: c.firstSequence, ...metaFields(c.id, c.owner, c.version, c.fields, c.trace), ...(c.task === undefined && { a: 1 }) };
  return [JSON.stringify(meta), c.task ?? '', ...c.events].join('\n');
}

/** A snapshot record's payload for `live`. */
export function snapshotPayload(id: string, live: LiveTask): string {
  const meta = { t: 's', l: live.lastSequence, ...metaFields(id, live.owner, live.version, live.fields, live.trace), ...(live.pending > 0 && { p: live.pending }) };
  return [JSON.stringify(meta), live.task, ...live.events].join('\n');
}

/** A delete record's payload. */
export function deletePayload(id: string): string {
  return JSON.stringify({ t: 'd', id });
}

function fieldsOf(meta: Fields): IndexedTaskFields {
  return { id: meta.id, contextId: meta.ctx, status: { state: meta.st, timestamp: meta.ts } };
}

const size = (live: LiveTask) => 96 + live.task.length + live.eventChars + live.events.length;

/**
 * The live tasks of a log, rebuilt by replaying records and kept current by
 * the store. `liveChars` estimates what a snapshot of them takes (in UTF-16
 * characters, close to bytes for mostly-ASCII JSON); compaction compares it
 * with the log's size.
 */
export class LiveState {
  readonly tasks = new Map<string, LiveTask>();
  liveChars = 0;

  constructor(readonly maxEvents: number) {}

  /** Applies a commit (skipped when the task is already at this version or newer). */
  applyCommit(c: CommitInput): void {
    const old = this.tasks.get(c.id);
    if (old !== undefined && old.version >= c.version) return;
    const oldSize = old === undefined ? 0 : size(old);
    const contiguous = old !== undefined && old.lastSequence === c.firstSequence - 1;
    if (c.task === undefined && !contiguous) throw new Error(`append-only commit of task ${c.id} at version ${c.version} does not follow its previous commit`);
    const events = contiguous ? old.events : [];
    let eventChars = contiguous ? old.eventChars : 0;
    for (const e of c.events) {
      events.push(e);
      eventChars += e.length;
    }
    this.put(c.id, {
      owner: c.owner,
      version: c.version,
      lastSequence: c.firstSequence - 1 + c.events.length,
      task: c.task ?? old!.task,
      events,
      eventChars,
      pending: c.task === undefined ? old!.pending + c.events.length : 0,
      fields: c.fields,
      trace: c.trace ?? old?.trace,
    }, oldSize);
  }

  /** Removes a task; true when it was there. */
  applyDelete(id: string): boolean {
    const old = this.tasks.get(id);
    if (old === undefined) return false;
    this.liveChars -= size(old);
    this.tasks.delete(id);
    return true;
  }

  /** Applies one payload read from a log. Throws on a record it cannot understand. */
  applyPayload(payload: string): void {
    const lines = payload.split('\n');
    const meta = JSON.parse(lines[0]!) as Meta;
    if (meta.t === 'h') {
      if (!READABLE_FORMATS.includes(meta.format)) throw new Error(`log format ${meta.format} is not supported (this version reads ${READABLE_FORMATS.join(' and ')})`);
    } else if (meta.t === 'd') {
      this.applyDelete(meta.id);
    } else if (meta.t === 'c' || meta.t === 's') {
      const task = lines[1];
      if (task === undefined) throw new Error(`record of task ${meta.id} has no task`);
      const events = lines.slice(2);
      if (meta.t === 'c') {
        const logged = meta.a === 1 ? undefined : task;
        this.applyCommit({ id: meta.id, owner: meta.o, version: meta.v, firstSequence: meta.s, task: logged, events, fields: fieldsOf(meta), trace: meta.tr });
      } else {
        const eventChars = events.reduce((n, e) => n + e.length, 0);
        const old = this.tasks.get(meta.id);
        const live = { owner: meta.o, version: meta.v, lastSequence: meta.l, task, events, eventChars, pending: meta.p ?? 0, fields: fieldsOf(meta), trace: meta.tr };
        this.put(meta.id, live, old === undefined ? 0 : size(old));
      }
    } else {
      throw new Error(`unknown record type ${JSON.stringify((meta as { t: unknown }).t)}`);
    }
  }

  private put(id: string, live: LiveTask, oldSize: number): void {
    this.liveChars -= oldSize;
    // The store writes the task before its pending events could be dropped (see SnapshotLags): never more pending than kept.
    const excess = Math.min(live.events.length - this.maxEvents, live.events.length - live.pending);
    if (excess > 0) {
      for (let i = 0; i < excess; i++) live.eventChars -= live.events[i]!.length;
      live.events.splice(0, excess);
    }
    this.liveChars += size(live);
    this.tasks.set(id, live);
  }
}

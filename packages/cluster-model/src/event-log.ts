/**
 * Each task's event log as the database stores it and as clients were
 * sent it, for the invariant `sequence-kept`: no sequence number a client
 * saw is later stored or sent with another event. Every event is unique
 * (`kind@replica#n`): two commits never log the same event, so a number
 * stored again with anything but what a client saw is a reuse. After each
 * event commit the database is kept in the world's journal, for an
 * asynchronous failover to go back to (failover.ts).
 */
import { violate } from './invariants.js';
import type { Replica, World } from './model-state.js';

/** What an event is: the status a commit leaves, or the whole task logged before a gap (`{ task }`). */
export type EventKind = 'submitted' | 'working' | 'input-required' | 'completed' | 'failed' | 'canceled' | 'task';

/** Which commit logged an event (a violation's cause). */
export type CommitPath = 'create' | 'continuation' | 'run' | 'settle' | 'after-loss' | 'stop' | 'cancel';

/** `replica` has committed or sent `task` up to `seq` (`PublishedSequences.note`). */
function note(replica: Replica, task: string, seq: number): void {
  if ((replica.published[task] ?? 0) < seq) replica.published[task] = seq;
}

/**
 * A commit by `replica` that landed has logged `kinds` on `task` from
 * sequence `first`: each is checked against what clients saw under its
 * number (a different one breaks `sequence-kept`, named by `path`, with
 * `-unseen` when `replica` itself had not sent that number); the calls
 * following the task (waiting calls not deaf, on any replica that is up)
 * are sent them; the database is journaled.
 */
export function logged(w: World, replica: Replica, task: string, first: number, kinds: readonly EventKind[], path: CommitPath): void {
  const log = (w.stored[task] ??= {});
  const knew = replica.published[task] ?? 0;
  const seqs = kinds.map((kind, i) => {
    const seq = first + i;
    const event = `${kind}@${replica.id}#${w.nextId++}`;
    log[seq] = event;
    const saw = w.seen[task]?.[seq];
    if (saw !== undefined && saw !== event) {
      const cause = knew >= seq ? path : `${path}-unseen`;
      violate(w, 'sequence-kept', `${task}#${seq}`, `a client saw ${saw} at ${seq}; ${replica.id} stored ${event} there (${path}; it had sent up to ${knew})`, cause);
    }
    return seq;
  });
  note(replica, task, first + kinds.length - 1);
  for (const other of w.replicas) {
    if (other.up && other.waiters.some((waiter) => waiter.task === task && !waiter.deaf)) for (const seq of seqs) sent(w, other, task, seq);
  }
  if (w.journalLength === 0) return;
  w.journal.push(structuredClone({ db: w.db, stored: w.stored, top: first + kinds.length - 1 }));
  if (w.journal.length > w.journalLength) w.journal.shift();
}

/** A client of `replica` is sent `task`'s stored event at `seq` (a stream, a send's answer): it must be the one any client saw there. */
export function sent(w: World, replica: Replica, task: string, seq: number): void {
  const event = w.stored[task]?.[seq];
  if (event === undefined) return;
  const seen = (w.seen[task] ??= {});
  const saw = seen[seq];
  if (saw !== undefined && saw !== event) violate(w, 'sequence-kept', `${task}#${seq}`, `a client saw ${saw} at ${seq}; ${replica.id} sent ${event} under it`, 'sent');
  seen[seq] ??= event;
  note(replica, task, seq);
}

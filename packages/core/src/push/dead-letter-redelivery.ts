import type { StoredEvent } from '../store/task-store.js';
import type { DeadLetterMatch, PushDeadLetter, PushSource, RedeliverySkipReason, RedeliverySummary } from './push-config-store.js';
import { deadLetterFilter } from './push-state.js';
import type { SendResult } from './webhook-send.js';

/** What {@link redeliverDeadLetters} works with. */
export interface RedeliveryDeps {
  readonly source: PushSource;
  /** Sends one event to a config with the delivery's retries and SSRF checks, ignoring the config's cursor. */
  readonly send: (taskId: string, configId: string, event: StoredEvent) => Promise<SendResult>;
}

/**
 * Sends the dead letters matching `match` again, one letter at a time,
 * oldest first, each letter's events in order: the letter's own event, or
 * for a range (no event) the events the task store still has, all of them
 * or the letter is skipped. It goes to the config as it is now (its current
 * URL and credentials), and skips a letter whose config was deleted. A
 * letter whose events were all acknowledged is removed with every other
 * letter of the same task, config and sequence; a failed one stays as it
 * was. Cursors are never touched. Rejects (with what was done so far lost)
 * when the delivery closes meanwhile, and with a RangeError for a bad
 * `match.before`.
 */
export async function redeliverDeadLetters(deps: RedeliveryDeps, match: DeadLetterMatch = {}): Promise<RedeliverySummary> {
  const { configs } = deps.source;
  const matches = deadLetterFilter(match);
  const letters = (await configs.listDeadLetters(match.taskId === undefined ? {} : { taskId: match.taskId })).filter(matches);
  const summary = { delivered: [] as PushDeadLetter[], failed: [] as RedeliverySummary['failed'][number][], skipped: [] as RedeliverySummary['skipped'][number][] };
  for (const letter of letters) {
    const { taskId, configId, sequence } = letter;
    const events = (await configs.get(taskId, configId)) ? await eventsOf(deps.source, letter) : 'config-deleted';
    if (typeof events === 'string') {
      summary.skipped.push({ letter, reason: events });
      continue;
    }
    let result: SendResult = { kind: 'acknowledged' };
    for (const event of events) {
      result = await deps.send(taskId, configId, event);
      if (result.kind !== 'acknowledged') break;
    }
    if (result.kind === 'stopped') throw new Error('The webhook delivery was closed during the redelivery');
    if (result.kind === 'gone') summary.skipped.push({ letter, reason: 'config-deleted' });
    else if (result.kind === 'failed') summary.failed.push({ letter, attempts: result.attempts, error: result.error });
    else {
      await configs.removeDeadLetters({ taskId, configId, sequence });
      summary.delivered.push(letter);
    }
  }
  return summary;
}

/** The events a letter stands for, or why they cannot be sent. */
async function eventsOf({ tasks }: PushSource, letter: PushDeadLetter): Promise<StoredEvent[] | RedeliverySkipReason> {
  if (letter.event) return [{ sequence: letter.sequence, event: letter.event }];
  if (!(await tasks.get(letter.taskId))) return 'task-gone';
  const count = (letter.throughSequence ?? letter.sequence) - letter.sequence + 1;
  const events = await tasks.readEvents(letter.taskId, letter.sequence - 1, count);
  return events.length === count && events[0]!.sequence === letter.sequence ? events : 'events-gone';
}

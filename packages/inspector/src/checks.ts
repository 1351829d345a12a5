import type { StreamEvent, Task } from '@taskwire/core';
import { A2AError, isSettled, isTerminal, stateOf } from '@taskwire/core';
import type { CheckClient } from './answer-shapes.js';
import { shapeChecked } from './answer-shapes.js';
import { describe, drain, errorText, startSlow, taskIdOf, userMessage } from './check-kit.js';
import { resumes } from './resume-check.js';

/** The outcome of one check, with what was seen. */
export interface CheckResult {
  readonly id: 'card' | 'stream-terminal' | 'get-after-completion' | 'cancel' | 'resubscribe' | 'resume' | 'error-codes';
  readonly name: string;
  /** `not-run`: a check it depends on gave it nothing to work with (the evidence says what). */
  readonly status: 'passed' | 'failed' | 'not-run';
  readonly evidence: readonly string[];
}

/** What the battery sends. Both texts are the agent's input; defaults suit the reference agent. */
export interface CheckOptions {
  /** A message the agent answers at once (default `echo taskwire inspector`). */
  readonly quickText?: string;
  /** A message that keeps the agent working for a few seconds, streaming as it goes (default `slow 40 100`). */
  readonly slowText?: string;
  /** Time limit of each check, in ms (default 15000). */
  readonly timeoutMs?: number;
}

async function streamTerminal(client: CheckClient, text: string, signal: AbortSignal): Promise<{ result: CheckResult; taskId?: string; terminal?: boolean }> {
  const events: StreamEvent[] = [];
  const name = 'Streaming ends with a terminal (or interrupted) event';
  try {
    await drain(client.sendStreamingMessage(userMessage(text), { signal }), events);
  } catch (error) {
    return { result: { id: 'stream-terminal', name, status: 'failed', evidence: [...events.map(describe), `stream failed: ${errorText(error)}`] } };
  }
  const last = events.at(-1);
  const state = last && stateOf(last.response);
  const ended = last !== undefined && ('message' in last.response || (state !== undefined && isSettled(state)));
  const evidence = [`${events.length} events: ${events.map(describe).join(', ')}`, ended ? 'the last event ends the turn' : 'the stream closed before a terminal or interrupted event'];
  const taskId = events.map(taskIdOf).find((id) => id !== undefined);
  return { result: { id: 'stream-terminal', name, status: ended ? 'passed' : 'failed', evidence }, ...(taskId && { taskId }), terminal: state !== undefined && isTerminal(state) };
}

async function getAfter(client: CheckClient, taskId: string | undefined, signal: AbortSignal): Promise<CheckResult> {
  const name = 'GetTask after completion returns the finished task';
  if (!taskId) return { id: 'get-after-completion', name, status: 'not-run', evidence: ['the stream named no task (it failed, or the agent answered with a message)'] };
  try {
    const task = await client.getTask({ id: taskId, historyLength: 10 }, { signal });
    const ok = isSettled(task.status.state) && task.id === taskId;
    return { id: 'get-after-completion', name, status: ok ? 'passed' : 'failed', evidence: [`GetTask ${taskId}: ${task.status.state}, ${task.history?.length ?? 0} history messages, ${task.artifacts?.length ?? 0} artifacts`] };
  } catch (error) {
    return { id: 'get-after-completion', name, status: 'failed', evidence: [`GetTask ${taskId} failed: ${errorText(error)}`] };
  }
}

async function cancelWorks(client: CheckClient, text: string, signal: AbortSignal): Promise<CheckResult> {
  const name = 'CancelTask stops a running task (canceled, and its stream ends)';
  const started = await startSlow(client, text, signal);
  if (!started.taskId) return { id: 'cancel', name, status: 'not-run', evidence: ['the slow message started no task'] };
  const evidence = [`task ${started.taskId} started (${started.events.map(describe).join(', ')})`];
  let canceled: Task | undefined;
  try {
    canceled = await client.cancelTask({ id: started.taskId }, { signal });
    evidence.push(`CancelTask answered ${canceled.status.state}`);
  } catch (error) {
    evidence.push(`CancelTask failed: ${errorText(error)}`);
  }
  await started.rest.catch((error: unknown) => evidence.push(`the stream failed: ${errorText(error)}`));
  const last = started.events.at(-1);
  const lastState = last && stateOf(last.response);
  evidence.push(`the stream ended after ${started.events.length} events, last: ${last ? describe(last) : 'none'}`);
  const stored = await client.getTask({ id: started.taskId }, { signal }).catch(() => undefined);
  if (stored) evidence.push(`GetTask then: ${stored.status.state}`);
  const ok = canceled?.status.state === 'TASK_STATE_CANCELED' && lastState === 'TASK_STATE_CANCELED' && stored?.status.state === 'TASK_STATE_CANCELED';
  return { id: 'cancel', name, status: ok ? 'passed' : 'failed', evidence };
}

async function resubscribes(client: CheckClient, text: string, signal: AbortSignal): Promise<CheckResult> {
  const name = 'SubscribeToTask on a running task starts with the task as it is, then follows it';
  const started = await startSlow(client, text, signal);
  if (!started.taskId) return { id: 'resubscribe', name, status: 'not-run', evidence: ['the slow message started no task'] };
  const seen: StreamEvent[] = [];
  const evidence: string[] = [];
  try {
    for await (const event of client.subscribeToTask({ id: started.taskId }, { signal })) {
      seen.push(event);
      if (seen.length === 3) await client.cancelTask({ id: started.taskId }, { signal }).catch(() => undefined);
      const state = stateOf(event.response);
      if (state !== undefined && isTerminal(state)) break;
    }
  } catch (error) {
    evidence.push(`SubscribeToTask failed: ${errorText(error)}`);
  }
  await client.cancelTask({ id: started.taskId }, { signal }).catch(() => undefined);
  await started.rest.catch(() => undefined);
  const first = seen[0];
  const snapshot = first !== undefined && 'task' in first.response;
  const last = seen.at(-1);
  const lastState = last && stateOf(last.response);
  evidence.unshift(
    `task ${started.taskId}: the subscription saw ${seen.length} events: ${seen.slice(0, 6).map(describe).join(', ')}${seen.length > 6 ? ', ...' : ''}`,
    snapshot ? 'its first event is the task as it was' : 'its first event is not the task (§3.1.6: the first event is the Task)',
  );
  const ok = snapshot && seen.length > 1 && lastState !== undefined && isTerminal(lastState);
  return { id: 'resubscribe', name, status: ok ? 'passed' : 'failed', evidence };
}

async function errorCodes(client: CheckClient, finishedTaskId: string | undefined, signal: AbortSignal): Promise<CheckResult> {
  const unknown = `inspector-missing-${crypto.randomUUID()}`;
  const expectations: [string, () => Promise<unknown>, string][] = [
    ['GetTask of an unknown task', () => client.getTask({ id: unknown }, { signal }), 'TaskNotFound'],
    ['CancelTask of an unknown task', () => client.cancelTask({ id: unknown }, { signal }), 'TaskNotFound'],
  ];
  if (finishedTaskId) {
    const drainSubscribe = () => drain(client.subscribeToTask({ id: finishedTaskId }, { signal }), []);
    expectations.push(['SubscribeToTask of a finished task', drainSubscribe, 'UnsupportedOperation']);
  }
  const evidence: string[] = [];
  let ok = true;
  for (const [what, call, kind] of expectations) {
    try {
      await call();
      ok = false;
      evidence.push(`${what}: succeeded, expected ${kind}`);
    } catch (error) {
      const right = A2AError.is(error) && error.kind === kind;
      ok &&= right;
      evidence.push(`${what}: ${errorText(error)}${right ? '' : ` (expected ${kind})`}`);
    }
  }
  return { id: 'error-codes', name: 'Errors carry A2A codes', status: ok ? 'passed' : 'failed', evidence };
}

/**
 * Runs the check battery against the agent `client` talks to, one check
 * after the other: a stream ends with a terminal (or interrupted) event;
 * GetTask after it returns the finished task; CancelTask of a running task
 * cancels it and ends its stream; SubscribeToTask of a running task starts
 * with the task as it is and follows it; errors carry A2A codes. Never
 * throws: each failure is a failed check with its evidence.
 */
export async function runChecks(agent: CheckClient, options: CheckOptions = {}): Promise<CheckResult[]> {
  const client = shapeChecked(agent);
  const limit = () => AbortSignal.timeout(options.timeoutMs ?? 15_000);
  const quick = options.quickText ?? 'echo taskwire inspector';
  const slow = options.slowText ?? 'slow 40 100';
  const stream = 'Streaming ends with a terminal (or interrupted) event';
  const first = await streamTerminal(client, quick, limit()).catch((error: unknown) => ({ result: failed('stream-terminal', stream, error), taskId: undefined, terminal: false }));
  const results: CheckResult[] = [first.result];
  results.push(await getAfter(client, first.taskId, limit()).catch((error: unknown) => failed('get-after-completion', 'GetTask after completion', error)));
  results.push(await cancelWorks(client, slow, limit()).catch((error: unknown) => failed('cancel', 'CancelTask stops a running task', error)));
  results.push(await resubscribes(client, slow, limit()).catch((error: unknown) => failed('resubscribe', 'SubscribeToTask on a running task', error)));
  results.push(await resumes(client, slow, limit()).catch((error: unknown) => failed('resume', 'A stream resumes from the last event seen', error)));
  results.push(await errorCodes(client, first.terminal ? first.taskId : undefined, limit()).catch((error: unknown) => failed('error-codes', 'Errors carry A2A codes', error)));
  return results;
}

/** A check that threw: failed, with the error as its evidence. */
function failed(id: CheckResult['id'], name: string, error: unknown): CheckResult {
  return { id, name, status: 'failed', evidence: [`failed: ${errorText(error)}`] };
}

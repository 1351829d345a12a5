import type { CheckClient } from './answer-shapes.js';
import type { StreamEvent } from '@taskwire/core';
import { isTerminal, stateOf } from '@taskwire/core';
import type { CheckResult } from './checks.js';
import { describe, errorText, startSlow } from './check-kit.js';

const NAME = 'A dropped stream resumes from the last event seen (event ids; SubscribeToTask afterSequence / Last-Event-ID), nothing lost or repeated';

/**
 * The resumption check: a stream of `slowText` is dropped after three
 * events; the events must carry sequence numbers (SSE `id`, gRPC metadata,
 * tRPC ids), and SubscribeToTask from the last one must go on with the next
 * number, no gap, no repeat. The task is canceled afterwards.
 */
export async function resumes(client: CheckClient, text: string, signal: AbortSignal): Promise<CheckResult> {
  const started = await startSlow(client, text, signal, 3, false);
  const id = started.taskId;
  if (!id) return { id: 'resume', name: NAME, status: 'not-run', evidence: ['the slow message started no task'] };
  const evidence = [`task ${id}: dropped the stream after ${started.events.map(describe).join(', ')}`];
  const last = started.events.at(-1)?.sequence ?? 0;
  try {
    if (started.events.every((e) => e.sequence === 0)) {
      evidence.push('its events carry no ids: after a dropped connection a client cannot ask for what it missed, only re-read the task');
      return { id: 'resume', name: NAME, status: 'failed', evidence };
    }
    const seen: StreamEvent[] = [];
    try {
      for await (const event of client.subscribeToTask({ id, afterSequence: last }, { signal, resume: false })) {
        seen.push(event);
        const state = stateOf(event.response);
        if (seen.length >= 3 || (state !== undefined && isTerminal(state))) break;
      }
    } catch (error) {
      evidence.push(`SubscribeToTask after #${last} failed: ${errorText(error)}`);
    }
    const numbers = seen.map((e) => e.sequence).filter((n) => n > 0);
    const contiguous = numbers.length > 0 && numbers.every((n, i) => n === last + 1 + i);
    evidence.push(`SubscribeToTask after #${last}: ${seen.map(describe).join(', ') || 'nothing'}`, contiguous ? `it went on at #${last + 1}, no gap, no repeat` : 'it did not go on at the next event');
    return { id: 'resume', name: NAME, status: contiguous ? 'passed' : 'failed', evidence };
  } finally {
    await client.cancelTask({ id }, { signal }).catch(() => undefined);
  }
}

import type { Message, Task, Transport } from '@taskwire/core';
import { A2AError, isSettled, isTerminal } from '@taskwire/core';
import type { Cluster } from './cluster.js';

/** A user message with a fresh id (`taskId` continues a task). */
export const message = (text: string, taskId?: string): Message => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...(taskId && { taskId }) });

/** Sends `text` and returns the task (non-blocking unless `blocking`). */
export async function send(transport: Transport, text: string, options: { taskId?: string; blocking?: boolean } = {}): Promise<Task> {
  const result = await transport.unary('SendMessage', { message: message(text, options.taskId), configuration: { returnImmediately: !options.blocking } });
  if (!('task' in result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
  return result.task;
}

/**
 * Resolves once `check` holds, looking again every `everyMs` (the thing
 * waited for happens in other processes: there is no event to wait on);
 * rejects, naming `what`, after `limitMs`. Resolves how long it took.
 */
export async function until(check: () => boolean | Promise<boolean>, what: string, limitMs: number, everyMs = 25): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > limitMs) throw new Error(`gave up after ${limitMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return Date.now() - started;
}

/** GetTask over `reader` until each of `ids` is terminal (or settled, with `settled`); rejects after `limitMs`. */
export async function finalTasks(reader: Transport, ids: readonly string[], limitMs: number, settled = false): Promise<Map<string, Task>> {
  const final = new Map<string, Task>();
  await until(
    async () => {
      for (const id of ids.filter((i) => !final.has(i))) {
        const task = await reader.unary('GetTask', { id, historyLength: 0 }).catch(() => undefined);
        if (task && (settled ? isSettled(task.status.state) : isTerminal(task.status.state))) final.set(id, task);
      }
      return final.size === ids.length;
    },
    `${ids.length} task(s) to end`,
    limitMs,
    50,
  );
  return final;
}

/** The replicas whose process exited (crashed), by index. */
export function crashed(cluster: Cluster): number[] {
  return cluster.replicas.filter((r) => r.up && (r.process.child.exitCode !== null || r.process.child.signalCode !== null)).map((r) => r.index);
}

/** True when `error` is the retryable error a replica answers while its database is unreachable. */
export function isRetryable(error: unknown): boolean {
  return A2AError.is(error) && error.metadata.retryable === 'true';
}

/** The states of `tasks` that are not `expected`, as `id: state` lines (empty when all are). */
export function unexpected(tasks: Map<string, Task>, expected: string): string[] {
  return [...tasks.values()].filter((t) => t.status.state !== expected).map((t) => `${t.id}: ${t.status.state} ${JSON.stringify(t.status.message?.parts ?? [])}`);
}

import type { Agent } from '../agent/agent.js';

/** A promise and the function that resolves it (a gate for tests). */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * An agent for tests that must act while a run is under way: `started`
 * resolves with the task id once the agent runs; the agent then waits for
 * `release()` and completes its task with `done`.
 */
export function gatedAgent(): { agent: Agent; started: Promise<string>; release: () => void } {
  const gate = deferred();
  const started = deferred<string>();
  const agent: Agent = async (ctx) => {
    started.resolve(ctx.task.id);
    await gate.promise;
    await ctx.complete('done');
  };
  return { agent, started: started.promise, release: () => gate.resolve() };
}

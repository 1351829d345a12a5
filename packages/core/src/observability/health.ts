import type { TaskStore } from '../store/task-store.js';

/** Whether a store answered a readiness probe, and why not when it did not. */
export type StoreProbe = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** The task id a readiness probe reads when the store has no `ping` (no task has it; reading it is a cheap miss). */
const PROBE_TASK_ID = 'taskwire-readiness-probe';

/**
 * Checks that `store` answers: its `ping()` when it has one, else a read of
 * a task id no task has. Resolves `{ok: false}` (never rejects) when the
 * store fails, is closed, or takes longer than `timeoutMs` (default 2000).
 */
export async function probeStore(store: TaskStore, timeoutMs = 2000): Promise<StoreProbe> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<StoreProbe>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, reason: `the task store did not answer within ${timeoutMs} ms` }), timeoutMs);
  });
  const probe = (store.ping ? store.ping() : store.get(PROBE_TASK_ID)).then(
    (): StoreProbe => ({ ok: true }),
    (error: unknown): StoreProbe => ({ ok: false, reason: `the task store failed: ${error instanceof Error ? error.message : String(error)}` }),
  );
  try {
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

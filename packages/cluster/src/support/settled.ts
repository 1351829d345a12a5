import type { Transport } from '@taskwire/core';
import { isSettled } from '@taskwire/core';

/**
 * Resolves once no task the caller can list (its tenant's, over
 * `transport`) is submitted or working: the agent runs of those tasks, on
 * whichever replica they run, have settled them. Looks again every 20 ms
 * (the runs are in other processes: there is no event to wait on here).
 */
export async function allSettled(transport: Transport): Promise<void> {
  for (;;) {
    const { tasks } = await transport.unary('ListTasks', { pageSize: 100, historyLength: 0 });
    if (tasks.every((task) => isSettled(task.status.state))) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

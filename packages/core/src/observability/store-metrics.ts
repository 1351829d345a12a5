import { isTerminal } from '../schema/index.js';
import type { CommitRequest, CommitResult, TaskStore } from '../store/task-store.js';
import { VersionConflictError } from '../store/task-store.js';
import { ATTR } from './attributes.js';
import type { Instruments } from './instruments.js';
import type { Telemetry } from './telemetry.js';

const now = () => performance.now();

/**
 * `store` with its commits measured: `taskwire.store.commit.duration` by
 * outcome, `taskwire.store.version_conflicts`, and `taskwire.tasks.finished`
 * for every commit that leaves a task in a final state (a final state is
 * entered once: terminal tasks take no further commits). Every other member
 * is the store's own (a proxy, so optional and adapter-specific methods stay
 * reachable). When no meter provider is there yet (or telemetry is off),
 * `store` itself: its calls then cost nothing extra, and store metrics need
 * the meter provider before the service is built (start the SDK first).
 */
export function measuredStore(store: TaskStore, telemetry: Telemetry): TaskStore {
  if (telemetry.instruments() === undefined) return store;
  const measured = async (request: CommitRequest, instruments: Instruments): Promise<CommitResult> => {
    const started = now();
    try {
      const result = await store.commit(request);
      instruments.storeCommitDuration.record(now() - started, { [ATTR.storeOutcome]: 'ok' });
      const state = request.task.status.state;
      if (isTerminal(state)) instruments.tasksFinished.add(1, { [ATTR.taskState]: state });
      return result;
    } catch (error) {
      const conflict = error instanceof VersionConflictError;
      instruments.storeCommitDuration.record(now() - started, { [ATTR.storeOutcome]: conflict ? 'conflict' : 'error' });
      if (conflict) instruments.storeVersionConflicts.add(1);
      throw error;
    }
  };
  // Unmeasured commits go straight to the store (no extra promise, no extra turn).
  const commit = (request: CommitRequest): Promise<CommitResult> => {
    const instruments = telemetry.instruments();
    return instruments === undefined ? store.commit(request) : measured(request, instruments);
  };
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, key) {
      if (key === 'commit') return commit;
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      let fn = bound.get(key);
      if (fn === undefined) bound.set(key, (fn = (value as (...args: unknown[]) => unknown).bind(target)));
      return fn;
    },
  });
}

import { isTerminal } from '../schema/index.js';
import { createMemoryTaskStore } from '../store/memory-store.js';
import type { CommitRequest, TaskStore } from '../store/task-store.js';
import type { CoordinatorHost, TaskCoordinator } from './coordination.js';
import { LeaseLostError } from './coordination.js';
import { deferred } from './service-test-kit.js';

/** A memory store that keeps task leases as a store shared by several processes does (see {@link leasedStore}). */
export interface LeasedStore {
  readonly store: TaskStore;
  /** Every commit asked for, in order. */
  readonly requests: CommitRequest[];
  /** Another process (`holder`) takes the lease of `taskId` over, moving its version on as a take-over does; resolves the new epoch. */
  takeOver(taskId: string, holder: string): Promise<number>;
}

/**
 * A memory store honouring `LeaseCondition`s: a claim takes the lease (its
 * epoch is the version it makes; `ifFree` refuses another holder's lease, and its own at `heldEpoch`),
 * a hold is refused with `LeaseLostError` unless the lease is still the
 * writer's, a commit with no condition passes, and one leaving the task
 * terminal releases its lease. Leases never expire here.
 */
export function leasedStore(): LeasedStore {
  const inner = createMemoryTaskStore();
  const leases = new Map<string, { holder: string; epoch: number }>();
  const requests: CommitRequest[] = [];
  const store: TaskStore = {
    get: (id) => inner.get(id),
    async commit(request) {
      requests.push(request);
      const id = request.task.id;
      const lease = leases.get(id);
      const condition = request.lease;
      if (condition?.kind === 'hold' && (lease?.holder !== condition.holder || lease.epoch !== condition.epoch)) throw new LeaseLostError(id);
      if (condition?.kind === 'claim' && condition.ifFree && lease !== undefined && (lease.holder !== condition.holder || lease.epoch === condition.heldEpoch)) throw new LeaseLostError(id);
      const result = await inner.commit(request);
      if (isTerminal(request.task.status.state)) leases.delete(id);
      else if (condition?.kind === 'claim') leases.set(id, { holder: condition.holder, epoch: result.version });
      return result;
    },
    list: (query) => inner.list(query),
    delete: (id) => inner.delete(id),
    readEvents: (id, after, limit) => inner.readEvents(id, after, limit),
    close: () => inner.close(),
  };
  return {
    store,
    requests,
    async takeOver(taskId, holder) {
      const current = (await inner.get(taskId))!;
      const { version } = await inner.commit({ task: current.task, expectedVersion: current.version, owner: current.owner, events: [] });
      leases.set(taskId, { holder, epoch: version });
      return version;
    },
  };
}

/** A shared coordinator for tests: leases are only noted; the test says when one is lost and hands tasks over itself. */
export interface FakeCoordinator {
  readonly coordinator: TaskCoordinator;
  /** Resolves the epoch of the first lease held on `taskId`. */
  whenHeld(taskId: string): Promise<number>;
  /** Reports the lease held on `taskId` lost, as a failed renewal would. */
  lose(taskId: string): void;
  /** The service it coordinates (set once the service is built). */
  host(): CoordinatorHost;
}

/** A {@link FakeCoordinator} for a process named `processId`. */
export function fakeCoordinator(processId = 'here'): FakeCoordinator {
  const holds = new Map<string, { epoch: number; onLost: () => void }>();
  const held = new Map<string, ReturnType<typeof deferred<number>>>();
  const waiting = (taskId: string) => held.get(taskId) ?? held.set(taskId, deferred<number>()).get(taskId)!;
  let host: CoordinatorHost | undefined;
  const coordinator: TaskCoordinator = {
    shared: true,
    processId,
    leaseTtlMs: 60_000,
    watch: () => () => undefined,
    hold(taskId, epoch, onLost) {
      const hold = { epoch, onLost };
      holds.set(taskId, hold);
      waiting(taskId).resolve(epoch);
      return () => void (holds.get(taskId) === hold && holds.delete(taskId));
    },
    attach: (h) => void (host = h),
    recover: async () => [],
    close: async () => undefined,
  };
  return {
    coordinator,
    whenHeld: (taskId) => waiting(taskId).promise,
    lose(taskId) {
      const hold = holds.get(taskId);
      holds.delete(taskId);
      hold?.onLost();
    },
    host: () => host!,
  };
}

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

/** Processes sharing one memory store, each with a coordinator that hears the others (see {@link sharedProcesses}). */
export interface SharedProcesses {
  readonly store: TaskStore;
  /** The coordinator of process `processId`; one that does not `answerAborts` ignores abort requests, as an older release does. */
  coordinator(processId: string, options?: { readonly answerAborts?: boolean }): TaskCoordinator;
  /** Every abort request asked for, in order. */
  readonly abortRequests: { readonly from: string; readonly taskId: string; readonly graceMs: number }[];
}

/**
 * A memory store shared by processes in one test: every commit wakes the
 * watchers of its task in every process (on the next turn, as a
 * notification would); a lease held (`hold`) makes its process the task's
 * live holder until released, and `requestAbort` reaches the holder's
 * service (`abortRun`) unless it ignores such requests. Commit conditions
 * are not checked (see {@link leasedStore} for that).
 */
export function sharedProcesses(): SharedProcesses {
  const inner = createMemoryTaskStore();
  const watchers = new Map<string, Set<(lastSequence: number) => void>>();
  const holders = new Map<string, { processId: string; answerAborts: boolean; host: () => CoordinatorHost | undefined }>();
  const abortRequests: SharedProcesses['abortRequests'] = [];
  const store: TaskStore = {
    get: (id) => inner.get(id),
    async commit(request) {
      const result = await inner.commit(request);
      for (const onCommit of watchers.get(request.task.id) ?? []) setImmediate(() => onCommit(result.lastSequence));
      return result;
    },
    list: (query) => inner.list(query),
    delete: (id) => inner.delete(id),
    readEvents: (id, after, limit) => inner.readEvents(id, after, limit),
    close: () => inner.close(),
  };
  const coordinator = (processId: string, options: { readonly answerAborts?: boolean } = {}): TaskCoordinator => {
    let host: CoordinatorHost | undefined;
    return {
      shared: true,
      processId,
      leaseTtlMs: 60_000,
      watch(taskId, onCommit) {
        const set = watchers.get(taskId) ?? watchers.set(taskId, new Set()).get(taskId)!;
        set.add(onCommit);
        return () => void set.delete(onCommit);
      },
      hold(taskId) {
        const holder = { processId, answerAborts: options.answerAborts !== false, host: () => host };
        holders.set(taskId, holder);
        return () => void (holders.get(taskId) === holder && holders.delete(taskId));
      },
      async requestAbort(taskId, graceMs) {
        abortRequests.push({ from: processId, taskId, graceMs });
        const holder = holders.get(taskId);
        if (holder === undefined || holder.processId === processId) return false;
        if (holder.answerAborts) setImmediate(() => void holder.host()?.abortRun?.(taskId, graceMs));
        return true;
      },
      attach: (h) => void (host = h),
      recover: async () => [],
      close: async () => undefined,
    };
  };
  return { store, coordinator, abortRequests };
}

import { describe, expect, it } from 'vitest';
import { commitOf, testEvent, testTask } from '../store/store-conformance-fixtures.js';
import { claimEpoch, TaskLeases } from './task-leases.js';
import { fakeCoordinator, leasedStore } from './cluster-test-kit.js';
import { LeaseLostError } from './coordination.js';

describe('TaskLeases.condition once a renewal found the lease lost', () => {
  it('still holds at the lost epoch, so the store refuses the commit once another process holds the task (no condition would pass)', async () => {
    const { store, takeOver } = leasedStore();
    const fake = fakeCoordinator('here');
    const leases = new TaskLeases(fake.coordinator);
    const lost: number[] = [];
    leases.bind({ changed: () => undefined, lost: (_taskId, epoch) => void lost.push(epoch) });
    const task = testTask('t1');
    const created = await store.commit({ ...commitOf(task, 0, [{ task }]), lease: leases.condition('t1', true) });
    const epoch = claimEpoch(created);
    leases.claimed('t1', epoch);
    // Another process takes the task over; this one's next renewal finds its lease gone.
    await takeOver('t1', 'there');
    fake.lose('t1');
    expect(lost).toEqual([epoch]);
    expect(leases.epochOf('t1')).toBeUndefined();
    const condition = leases.condition('t1', false);
    expect(condition).toEqual({ kind: 'hold', holder: 'here', epoch, ttlMs: fake.coordinator.leaseTtlMs });
    const stored = (await store.get('t1'))!;
    const late = { ...commitOf(task, stored.version, [testEvent(task, 1)]), lease: condition };
    await expect(store.commit(late)).rejects.toBeInstanceOf(LeaseLostError);
    expect((await store.get('t1'))!.version).toBe(stored.version);
    // What the commit would do with no condition: pass over the other process's lease.
    await expect(store.commit({ ...late, lease: undefined })).resolves.toMatchObject({ version: stored.version + 1 });
  });
});

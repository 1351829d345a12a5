import { describe, expect, it } from 'vitest';
import type { Agent } from '../agent/agent.js';
import { A2AError } from '../errors.js';
import type { Message, StreamResponse } from '../schema/index.js';
import { createMemoryTaskStore } from '../store/memory-store.js';
import type { CommitRequest } from '../store/task-store.js';
import { deferred } from './service-test-kit.js';
import { TaskService } from './task-service.js';

const user = (text: string): Message => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] });
const numberOf = (event: StreamResponse) => ('statusUpdate' in event ? event.statusUpdate.metadata?.i : 'artifactUpdate' in event ? event.artifactUpdate.artifact.parts[0] : undefined);

/** A memory store that records the events of each commit. */
function countingStore() {
  const store = createMemoryTaskStore();
  const commits: (readonly StreamResponse[])[] = [];
  const commit = store.commit.bind(store);
  store.commit = (request: CommitRequest) => (commits.push(request.events), commit(request));
  return { store, commits };
}

describe("a run's events emitted while its previous commit is in flight", () => {
  it('go in its next commit, in order, each settling alone: a refused one rejects, the ones around it land', async () => {
    const { store, commits } = countingStore();
    const settled = deferred<PromiseSettledResult<void>[]>();
    const agent: Agent = async (ctx) => {
      await ctx.working(undefined, { metadata: { i: 0 } });
      const emits = [
        ctx.working(undefined, { metadata: { i: 1 } }),
        ctx.working(undefined, { metadata: { i: 2 } }),
        // Appends to an artifact the task does not have: the reducer refuses it alone.
        ctx.artifact({ artifactId: 'missing', text: 'x' }, { append: true }),
        ctx.working(undefined, { metadata: { i: 3 } }),
        ctx.artifact({ artifactId: 'a', text: 'y' }),
        ctx.working(undefined, { metadata: { i: 4 } }),
      ];
      settled.resolve(await Promise.allSettled(emits));
    };
    const service = new TaskService({ store, agent });
    const result = await service.unary('SendMessage', { message: user('go') });
    if (!('task' in result)) throw new Error('expected a task');
    const outcomes = await settled.promise;
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect(A2AError.is((outcomes[2] as PromiseRejectedResult).reason) && (outcomes[2] as PromiseRejectedResult).reason.code).toBe(-32006);
    // Update 1 goes alone (nothing in flight); 2, 3, the artifact and 4 wait for it and go together.
    const burst = commits.slice(-3, -1);
    expect(burst.map((events) => events.map(numberOf))).toEqual([[1], [2, 3, { text: 'y' }, 4]]);
    const log = await store.readEvents(result.task.id, 0);
    expect(log.map((e) => numberOf(e.event)).filter((n) => n !== undefined)).toEqual([0, 1, 2, 3, { text: 'y' }, 4]);
    expect(log.map((e) => e.sequence)).toEqual(log.map((_, i) => i + 1));
    await service.close();
  });
});

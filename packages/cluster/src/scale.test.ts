import type { StreamResponse, Task } from '@taskwire/core';
import { describePostgres } from '@taskwire/postgres/testing';
import { afterEach, expect, it } from 'vitest';
import { Deployment, type Pod } from './support/deployment.js';
import { finalTasks, message, unexpected, until } from './support/fault-kit.js';
import { storedLogProblems } from './support/logs.js';

/** Short, so that a task wrongly left to its lease would show within the test; long enough for a busy machine's event loop. */
const LEASE_TTL_MS = 5_000;

const taskIdOf = (response: StreamResponse): string | undefined =>
  'task' in response ? response.task.id : 'statusUpdate' in response ? response.statusUpdate.taskId : 'artifactUpdate' in response ? response.artifactUpdate.taskId : undefined;

/**
 * Streaming load on the pods that are up: each worker streams `slow 12 50`
 * tasks (about 0.6 s each) to the next pod, one after another. A task
 * counts once the stream has shown its id (acknowledged); a stream cut by
 * a pod that stops is fine (the task goes on, or ends, on the database).
 */
class StreamingLoad {
  readonly acked: { taskId: string; pod: number }[] = [];
  private stopped = false;
  private readonly workers: Promise<void>[] = [];
  private turn = 0;

  constructor(private readonly deployment: Deployment) {}

  start(workers: number): void {
    for (let w = 0; w < workers; w++) this.workers.push(this.work());
  }

  /** How many tasks pod `index` acknowledged. */
  on(index: number): number {
    return this.acked.filter((a) => a.pod === index).length;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.workers);
  }

  private async work(): Promise<void> {
    while (!this.stopped) {
      const up = this.deployment.up;
      const pod: Pod | undefined = up[this.turn++ % Math.max(1, up.length)];
      if (pod === undefined) throw new Error('no pod is up');
      let taskId: string | undefined;
      try {
        for await (const event of pod.transport.stream('SendStreamingMessage', { message: message('slow 12 50') }, { timeoutMs: 30_000 })) {
          if (taskId === undefined && (taskId = taskIdOf(event.response)) !== undefined) this.acked.push({ taskId, pod: pod.index });
        }
      } catch {
        // The pod is stopping under the stream (or refused the call while draining): what it acknowledged is checked at the end.
      }
    }
  }
}

const NAME_IN_USE = /another live process uses the replica name/;

describePostgres('scaling a replica set from 1 to 3 and back to 1 under streaming load', (db) => {
  let deployment: Deployment | undefined;
  afterEach(async () => {
    await deployment?.close();
    deployment = undefined;
  });

  /**
   * Scales pods started with `args` 1 -> 3 -> 1 under streaming load;
   * `named(pods)` checks what the pods said of their names once all three
   * are up. Every task acknowledged must complete.
   */
  async function scaleUnderLoad(args: readonly string[], named: (stderr: string[]) => void): Promise<void> {
    const schema = await db.schema('tw_scale');
    deployment = await Deployment.create(db.url, ['--migrate', '--schema', schema, '--lease-ttl-ms', String(LEASE_TTL_MS), '--drain-grace-ms', '20000', ...args]);
    await deployment.scaleTo(1);
    const load = new StreamingLoad(deployment);
    load.start(4);
    await until(() => load.on(0) >= 4, 'the first pod to be streaming tasks', 30_000);
    // Scale out while the first pod runs tasks: the new pods start (and recover) beside it.
    await deployment.scaleTo(3);
    await until(() => load.on(1) >= 2 && load.on(2) >= 2, 'the new pods to be streaming tasks', 30_000);
    named(deployment.pods.map((pod) => pod.process.stderr()));
    // Scale in: the newest pods stop (SIGTERM), letting their running tasks finish.
    await deployment.scaleTo(1);
    const after = load.acked.length;
    await until(() => load.acked.length >= after + 2, 'the last pod to go on streaming', 30_000);
    await load.stop();
    const ids = load.acked.map((a) => a.taskId);
    const tasks: Map<string, Task> = await finalTasks(deployment.pods[0]!.transport, ids, 30_000);
    expect(unexpected(tasks, 'TASK_STATE_COMPLETED')).toEqual([]);
    expect(await storedLogProblems(db.url, schema, ids)).toEqual([]);
    await db.drop(schema);
  }

  it('Deployment pods (one host-name prefix and port, default names) fail no task: a new pod never settles the live tasks of another', async () => {
    // Their default names differ: none had to fall back from a name in use.
    await scaleUnderLoad([], (stderr) => expect(stderr.filter((s) => NAME_IN_USE.test(s))).toEqual([]));
  }, 170_000);

  it('pods misconfigured with one explicit --replica-name fail no task either: each later one says the name is in use and settles nothing early', async () => {
    await scaleUnderLoad(['--replica-name', 'web'], (stderr) => expect(stderr.map((s) => NAME_IN_USE.test(s))).toEqual([false, true, true]));
  }, 170_000);
});

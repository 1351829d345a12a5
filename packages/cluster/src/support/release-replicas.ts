import type { StreamResponse, Task, Transport } from '@taskwire/core';
import { stateOf } from '@taskwire/core';
import { spawnAgent, type AgentProcess } from '@taskwire/reliability/support/agent-process';
import { connectTransport, type ClosableTransport } from '@taskwire/reliability/support/transports';
import { message } from './fault-kit.js';

/** A reference agent of one release (this one, or an earlier one's tree) serving a cluster's schema. */
export interface ReleaseReplica {
  /** Which release it runs (a commit, or `this release`). */
  readonly release: string;
  readonly process: AgentProcess;
  /** JSON-RPC to it. */
  readonly transport: ClosableTransport;
  /** False once it is being stopped: load stops picking it. */
  up: boolean;
}

/**
 * Starts a reference agent of the release at `root` (undefined: this
 * release) on `databaseUrl`'s `schema`, with `args`, and waits until it
 * serves. An older release refuses `--migrate` on a schema a newer release
 * migrated: pass it only to the first replica of a release.
 */
export async function startReplica(release: string, root: string | undefined, databaseUrl: string, schema: string, args: readonly string[]): Promise<ReleaseReplica> {
  const process = spawnAgent({ store: { url: databaseUrl }, args: ['--schema', schema, ...args], ...(root !== undefined && { root }) });
  const urls = await process.ready;
  return { release, process, transport: connectTransport('JSON-RPC', urls), up: true };
}

/** Stops `replica` with SIGTERM (a graceful drain) and closes the client's transport; resolves the exit code. */
export async function stopReplica(replica: ReleaseReplica): Promise<number | null> {
  replica.up = false;
  const code = await replica.process.stop();
  await replica.transport.close().catch(() => undefined);
  return code;
}

/**
 * SendStreamingMessage `text` (on `taskId`, when given) over `transport`
 * and reads the stream to its end; `acknowledged` is called with the
 * task's id at the first event (the task is stored). Resolves the task's
 * id, every event, and the state of the last one.
 */
export async function streamTask(
  transport: Transport,
  text: string,
  options: { taskId?: string; acknowledged?: (taskId: string) => void } = {},
): Promise<{ taskId: string; events: StreamResponse[]; last: string | undefined }> {
  const events: StreamResponse[] = [];
  let taskId = options.taskId ?? '';
  let last: string | undefined;
  for await (const event of transport.stream('SendStreamingMessage', { message: message(text, options.taskId) }, { timeoutMs: 30_000 })) {
    const response = event.response;
    if (events.length === 0) {
      taskId = 'task' in response ? response.task.id : 'statusUpdate' in response ? response.statusUpdate.taskId : taskId;
      options.acknowledged?.(taskId);
    }
    events.push(response);
    last = stateOf(response) ?? last;
  }
  return { taskId, events, last };
}

/** Every task of every ListTasks page over `transport` (artifacts included), following the page tokens. */
export async function listAll(transport: Transport): Promise<Task[]> {
  const tasks: Task[] = [];
  let pageToken = '';
  do {
    const page = await transport.unary('ListTasks', { pageSize: 50, includeArtifacts: true, ...(pageToken && { pageToken }) });
    tasks.push(...page.tasks);
    pageToken = page.nextPageToken;
  } while (pageToken !== '');
  return tasks;
}

// Test helpers shared by the tests of the framework adapters (@taskwire/langgraph,
// @taskwire/openai-agents; not part of any published package): an agent served
// on a real JSON-RPC server at 127.0.0.1, streamed sends and their statuses,
// and replica processes for the cluster tests. Imported as
// `@taskwire/reference-agent/adapter-test-kit`.
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { A2AClient } from '@taskwire/client';
import { createClient } from '@taskwire/client';
import type { Agent, AgentCard, Message, StreamResponse, Task, TaskServiceOptions, TaskStatus } from '@taskwire/core';
import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import { httpInterfaces, serveA2A } from '@taskwire/server-http';

/** A user message with a fresh id. */
export function userMessage(textOrParts: string | Message['parts'], extra: Partial<Message> = {}): Message {
  const parts = typeof textOrParts === 'string' ? [{ text: textOrParts }] : textOrParts;
  return { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts, ...extra };
}

/** A card for a test agent; the server fills in its interfaces. */
export function testCard(name: string): AgentCard {
  return {
    name,
    description: `The ${name} test agent`,
    supportedInterfaces: [],
    version: '0.0.1',
    capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'talk', name: 'Talk', description: 'Talks', tags: ['test'] }],
  };
}

/** An agent served over JSON-RPC, with a client. */
export interface Served {
  readonly service: TaskService;
  readonly url: string;
  readonly client: A2AClient;
  close(): Promise<void>;
}

/** Serves `agent` at 127.0.0.1 (a free port) and connects a client. */
export async function serve(agent: Agent, options: Partial<TaskServiceOptions> = {}): Promise<Served> {
  const card = testCard('graph');
  const service = new TaskService({ store: createMemoryTaskStore(), ...options, agent, card });
  const http = await serveA2A({ service, card: (base) => ({ ...card, supportedInterfaces: httpInterfaces(base) }) });
  const client = await createClient(http.url);
  return {
    service,
    url: http.url,
    client,
    async close() {
      await client.close();
      await http.close();
      await service.close();
    },
  };
}

/** Every event of one streamed send. */
export async function streamed(client: A2AClient, message: Message): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const event of client.stream('SendStreamingMessage', { message })) out.push(event.response);
  return out;
}

/** The last status of a stream's events. */
export function lastStatus(events: readonly StreamResponse[]): TaskStatus {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if ('statusUpdate' in e) return e.statusUpdate.status;
    if ('task' in e) return e.task.status;
  }
  throw new Error('no status in the stream');
}

/** The data parts of a stream's working status updates (an adapter's progress: tool calls, handoffs, node updates), in order. */
export function workingData(events: readonly StreamResponse[]): unknown[] {
  return events
    .flatMap((e) => ('statusUpdate' in e && e.statusUpdate.status.state === 'TASK_STATE_WORKING' ? (e.statusUpdate.status.message?.parts ?? []) : []))
    .flatMap((p) => ('data' in p ? [p.data] : []));
}

/** The text of a stream's artifact chunks, joined. */
export function artifactText(events: readonly StreamResponse[]): string {
  return events
    .flatMap((e) => ('artifactUpdate' in e ? e.artifactUpdate.artifact.parts : []))
    .map((p) => ('text' in p ? p.text : ''))
    .join('');
}

/** Streams a send and cancels its task once the first artifact chunk arrives; every event of the stream. */
export async function streamAndCancel(client: A2AClient, message: Message): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  let canceled = false;
  for await (const event of client.stream('SendStreamingMessage', { message })) {
    events.push(event.response);
    if ('artifactUpdate' in event.response && !canceled) {
      canceled = true;
      await client.cancelTask({ id: event.response.artifactUpdate.taskId });
    }
  }
  return events;
}

/**
 * A probe for a cancel test that isolates the abort signal: `hold(signal)`
 * (awaited by the framework's model, node or tool) says it has started and
 * waits until `signal` aborts or `timeoutMs` pass; `started` resolves once
 * it waits, `sawAbort` with whether the signal ended the wait.
 */
export function abortProbe(timeoutMs = 5_000): { hold(signal: AbortSignal | undefined): Promise<void>; started: Promise<void>; sawAbort: Promise<boolean> } {
  let start!: () => void;
  let saw!: (aborted: boolean) => void;
  const started = new Promise<void>((resolve) => (start = resolve));
  const sawAbort = new Promise<boolean>((resolve) => (saw = resolve));
  return {
    started,
    sawAbort,
    async hold(signal) {
      start();
      const aborted = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), timeoutMs);
        signal?.addEventListener('abort', () => (clearTimeout(timer), resolve(true)), { once: true });
      });
      saw(aborted);
    },
  };
}

/** Sends `message` streamed, cancels its task once `started` resolves (nothing being streamed then); every event of the stream. */
export async function cancelWhenStarted(client: A2AClient, message: Message, started: Promise<void>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  let canceled: Promise<unknown> | undefined;
  for await (const { response } of client.stream('SendStreamingMessage', { message })) {
    events.push(response);
    const taskId = 'task' in response ? response.task.id : 'statusUpdate' in response ? response.statusUpdate.taskId : undefined;
    canceled ??= taskId === undefined ? undefined : started.then(() => client.cancelTask({ id: taskId }));
  }
  await canceled;
  return events;
}

/** A remote agent for the tests of an `a2aTool`'s cancel: each task works until it is canceled. */
export interface WaitingRemote {
  /** A client of it, for the tool (`{ client }`): it notes when the tool has taken a stream's first event (so knows the task). */
  readonly client: A2AClient;
  /** Resolves once a call through `client` has taken its stream's first event. */
  readonly following: Promise<void>;
  /** Resolves with whether the remote task's signal aborted (false after a minute without). */
  readonly sawAbort: Promise<boolean>;
  /** The remote task once it has ended. */
  ended(): Promise<Task>;
  close(): Promise<void>;
}

/** Serves a {@link WaitingRemote}. */
export async function waitingRemote(): Promise<WaitingRemote> {
  let taskId = '';
  const probe = abortProbe(60_000);
  const served = await serve(async (ctx) => {
    taskId = ctx.task.id;
    await ctx.working('waiting');
    await probe.hold(ctx.signal);
  });
  let follow!: () => void;
  const following = new Promise<void>((resolve) => (follow = resolve));
  const real = served.client;
  const client = new Proxy(real, {
    get(target, key) {
      if (key !== 'stream') {
        const value: unknown = Reflect.get(target, key);
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return async function* (...args: unknown[]) {
        for await (const event of (target.stream as (...a: unknown[]) => AsyncIterable<unknown>)(...args)) {
          yield event;
          follow();
        }
      };
    },
  });
  return { client, following, sawAbort: probe.sawAbort, ended: () => real.waitForTask(taskId), close: () => served.close() };
}

/**
 * Sends a message to `caller` (an agent whose tool calls `remote`), cancels its task once the tool follows the
 * remote task, then closes both: the caller's last state, whether the remote task saw its signal abort, its final state.
 */
export async function cancelThroughTool(caller: Served, remote: WaitingRemote): Promise<{ caller: string; sawAbort: boolean; remote: string }> {
  try {
    const events = await cancelWhenStarted(caller.client, userMessage('go'), remote.following);
    return { caller: lastStatus(events).state, sawAbort: await remote.sawAbort, remote: (await remote.ended()).status.state };
  } finally {
    await caller.close();
    await remote.close();
  }
}

const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const replicas: ChildProcess[] = [];

/** A replica process: it, the URL it serves at, and its exit. */
export interface Replica {
  readonly child: ChildProcess;
  readonly url: string;
  readonly exited: Promise<unknown>;
}

/** Starts `script` (TypeScript, with `args`) on this Node; resolves once it prints `ready <url>`. */
export function startReplica(script: string, args: readonly string[]): Promise<Replica> {
  const child = spawn(process.execPath, ['--import', TSX, '--conditions=@taskwire/source', script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  replicas.push(child);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let out = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const ready = /ready (\S+)/.exec(out);
      if (ready) resolve({ child, url: ready[1]!, exited });
    });
    child.once('exit', (code) => reject(new Error(`the replica exited (${code}) before serving:\n${out}`)));
  });
}

/** Kills the replicas still running (an afterEach). */
export function stopReplicas(): void {
  for (const child of replicas.splice(0)) child.kill('SIGKILL');
}

/**
 * Sends `ask` to a first replica of `script` (which pauses the task), kills
 * that replica, starts a second one on the same `args` and sends `answer`
 * on the task there: the two last statuses, and the second replica.
 */
export async function pauseThenAnswerElsewhere(
  script: string,
  args: readonly string[],
  ask: string,
  answer: string,
): Promise<{ paused: TaskStatus; answered: TaskStatus; second: Replica }> {
  const first = await startReplica(script, args);
  const one = await createClient(first.url);
  const paused = lastStatus(await streamed(one, userMessage(ask)));
  const taskId = (await one.listTasks({})).tasks[0]!.id;
  await one.close();
  first.child.kill('SIGKILL');
  await first.exited;
  const second = await startReplica(script, args);
  const two = await createClient(second.url);
  const answered = lastStatus(await streamed(two, userMessage(answer, { taskId })));
  await two.close();
  return { paused, answered, second };
}

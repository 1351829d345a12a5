import type { A2AClient, CreateClientOptions } from '@taskwire/client';
import { applyResponse, createClient } from '@taskwire/client';
import type { AgentCard, Message, Task } from '@taskwire/core';
import { isTerminal } from '@taskwire/core';
import type { Tool } from 'ai';
import { tool } from 'ai';
import * as z from 'zod';
import { taskOutput, type A2AToolOutput } from './tool-output.js';

/** Where the remote agent is: its URL (the card is read from it), its card, or a client you made. */
export type A2ATarget =
  | { readonly url: string | URL; readonly card?: AgentCard | Record<string, unknown> }
  | { readonly card: AgentCard; readonly url?: undefined }
  | { readonly client: A2AClient };

/** Options of {@link a2aTool}: the target, and optionally how the tool describes itself and connects. */
export type A2AToolOptions = A2ATarget & {
  /** What the calling model reads about the tool (default: the card's name and description). */
  readonly description?: string;
  /**
   * `createClient` options (headers, preferred bindings, transports such as
   * gRPC ...). Credentials (`auth`, `headers`, interceptors that add them)
   * go only to the origin of `url` (with a `card` alone: of its first
   * interface) and to `trustedOrigins`: an interface or redirect elsewhere
   * fails the call with a `CredentialOriginError`, nothing sent.
   */
  readonly clientOptions?: Omit<CreateClientOptions, 'card'>;
  /** Yield the task as it progresses as preliminary tool results (default true). */
  readonly progress?: boolean;
  /** How long to wait for the remote agent's cancel after the caller aborts, in ms (default 5000). */
  readonly cancelTimeoutMs?: number;
};

/** The tool's input: what the model asks, and the task it answers when the remote agent asked for input. */
export const a2aToolInput = z.object({
  message: z.string().describe('What to ask or tell the remote agent'),
  taskId: z
    .string()
    .optional()
    .describe('Only to answer a remote agent that asked for input: the taskId of that result (the same task continues)'),
});

/** The tool's input type. */
export type A2AToolInput = z.infer<typeof a2aToolInput>;

function connect(options: A2AToolOptions): () => Promise<A2AClient> {
  let client: Promise<A2AClient> | undefined;
  return () => {
    if ('client' in options && options.client) return Promise.resolve(options.client);
    const { url, card } = options as { url?: string | URL; card?: AgentCard };
    const target = url ?? card?.supportedInterfaces?.[0]?.url;
    if (target === undefined) return Promise.reject(new Error('a2aTool needs a url, a card with supportedInterfaces, or a client'));
    client ??= createClient(target, { ...options.clientOptions, ...(card && { card }) });
    // A failed connection is not kept: the next call tries again.
    client.catch(() => (client = undefined));
    return client;
  };
}

/**
 * Another A2A agent as an AI SDK tool, on `@taskwire/client`. Each call
 * sends the model's `message` (on the task `taskId` names, to answer an
 * agent that asked for input) and follows the task: streamed when the card
 * says the agent streams, polled otherwise. While it runs, the task as it
 * stands is yielded as preliminary results (progress for the UI); the
 * final result has the task's state, its artifacts' text and data, and the
 * agent's last message. A task that needs input ends the call with
 * `state: 'input-required'`, the agent's `question` and the `taskId` to
 * answer on. An abort of the call (the caller's `abortSignal`) cancels the
 * remote task. Errors of the remote agent (unreachable, refused) are thrown:
 * the SDK hands them to the model as a tool error.
 */
export function a2aTool(options: A2AToolOptions): Tool<A2AToolInput, A2AToolOutput> {
  const clientOf = connect(options);
  const card = 'card' in options && options.card ? (options.card as AgentCard) : undefined;
  const description =
    options.description ??
    (card ? `Ask the agent "${card.name}": ${card.description}` : 'Ask a remote A2A agent; answer its questions by calling again with its taskId');
  return tool({
    description,
    inputSchema: a2aToolInput,
    async *execute({ message, taskId }, { abortSignal }) {
      const client = await clientOf();
      const request: Message = {
        messageId: crypto.randomUUID(),
        role: 'ROLE_USER',
        parts: [{ text: message }],
        ...(taskId && { taskId }),
      };
      let task: Task | undefined;
      try {
        for await (const event of untilAborted(client.stream('SendStreamingMessage', { message: request }, { signal: abortSignal }), abortSignal)) {
          const response = event.response;
          if ('message' in response) {
            yield taskOutput(undefined, response.message);
            return;
          }
          task = applyResponse(task, response) ?? task;
          if (task && options.progress !== false && !isTerminal(task.status.state)) yield taskOutput(task);
        }
      } catch (error) {
        if (abortSignal?.aborted && task && !isTerminal(task.status.state)) await cancel(client, task.id, options.cancelTimeoutMs ?? 5_000);
        throw error;
      }
      if (!task) throw new Error('The remote agent ended its stream without a task or a message');
      yield taskOutput(task);
    },
  });
}

/**
 * The events of `source` until `signal` aborts: then the iteration throws the
 * signal's reason at once, even while a transport still waits for its next
 * event (the gRPC stream of a quiet task does not end on abort by itself),
 * and the source is closed in the background.
 */
async function* untilAborted<T>(source: AsyncIterable<T>, signal: AbortSignal | undefined): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(signal!.reason ?? new DOMException('The call was aborted', 'AbortError'));
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => undefined);
  try {
    while (true) {
      const next = iterator.next();
      // A next() still pending when the signal wins settles later: its outcome is not wanted.
      next.catch(() => undefined);
      const result = await Promise.race([next, aborted]);
      if (result.done) return;
      yield result.value;
    }
  } finally {
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    Promise.resolve(iterator.return?.()).catch(() => undefined);
  }
}

/** Cancels the remote task; a failure (already settled, unreachable) is left for the task's own state to show. */
async function cancel(client: A2AClient, id: string, timeoutMs: number): Promise<void> {
  await client.cancelTask({ id }, { timeoutMs }).catch(() => undefined);
}

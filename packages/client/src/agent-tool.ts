import type { AgentCard, Message, Task } from '@taskwire/core';
import { isTerminal } from '@taskwire/core';
import type { A2AClient } from './client.js';
import type { CreateClientOptions } from './create-client.js';
import { createClient } from './create-client.js';
import { applyResponse } from './follow-task.js';
import type { A2AToolOutput } from './tool-output.js';
import { taskOutput } from './tool-output.js';

/** Where a remote agent is: its URL (the card is read from it), its card, or a client you made. */
export type A2ATarget =
  | { readonly url: string | URL; readonly card?: AgentCard | Record<string, unknown> }
  | { readonly card: AgentCard; readonly url?: undefined }
  | { readonly client: A2AClient };

/** The options every framework's `a2aTool` shares: the target, and optionally how the tool describes itself and connects. */
export type A2AToolOptions = A2ATarget & {
  /** The tool's name, for frameworks that name tools in their options (default: the card's name in letters, digits, `_` and `-`; else `a2a_agent`). */
  readonly name?: string;
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
  /** Yield the task as it progresses (default true; frameworks that stream tool progress show it). */
  readonly progress?: boolean;
  /**
   * How long to wait for the remote agent's cancel after the caller aborts,
   * in ms (default 5000). An abort before the remote task's first event
   * first waits as long for that event (it names the task to cancel).
   */
  readonly cancelTimeoutMs?: number;
};

/** What a tool call asks the remote agent: a message, on the task `taskId` names when it answers an agent that asked for input. */
export interface A2AToolCall {
  readonly message: string;
  readonly taskId?: string | null | undefined;
}

/** The tool's description: `options.description`, else from the card, else a generic one. */
export function toolDescription(options: A2AToolOptions): string {
  const card = 'card' in options && options.card ? (options.card as AgentCard) : undefined;
  return (
    options.description ??
    (card ? `Ask the agent "${card.name}": ${card.description}` : 'Ask a remote A2A agent; answer its questions by calling again with its taskId')
  );
}

/** The tool's name: `options.name`, else the card's name made safe for a tool name, else `a2a_agent`. */
export function toolName(options: A2AToolOptions): string {
  const card = 'card' in options ? (options.card as { name?: unknown } | undefined) : undefined;
  const fromCard = typeof card?.name === 'string' ? card.name.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 64) : '';
  return options.name ?? (fromCard || 'a2a_agent');
}

/**
 * A remote agent tool's calls: `call(input, signal)` sends the model's
 * `message` (on the task `taskId` names, to answer an agent that asked for
 * input) and follows the task, streamed when the card says the agent
 * streams, polled otherwise, yielding the task as it stands while it runs
 * (unless `progress: false`) and last its final {@link A2AToolOutput}; a
 * task that needs input ends the call with `state: 'input-required'`, the
 * agent's `question` and the `taskId` to answer on. An abort of `signal`
 * cancels the remote task and ends the call with the signal's reason; an
 * abort before the remote agent's first event (or, for an agent that does
 * not stream, before its answer to the send) keeps the request open until
 * that event names the task, for up to `cancelTimeoutMs`, then cancels it
 * (without the event by then, the request is dropped, and a call that
 * answers the task `taskId` names cancels that task). Errors of the
 * remote agent (unreachable, refused) are thrown. The client is made on
 * the first call (a failed connection is tried again on the next).
 */
export function remoteAgentCalls(options: A2AToolOptions): (input: A2AToolCall, signal?: AbortSignal) => AsyncGenerator<A2AToolOutput> {
  let client: Promise<A2AClient> | undefined;
  const clientOf = (): Promise<A2AClient> => {
    if ('client' in options && options.client) return Promise.resolve(options.client);
    const { url, card } = options as { url?: string | URL; card?: AgentCard };
    const target = url ?? card?.supportedInterfaces?.[0]?.url;
    if (target === undefined) return Promise.reject(new Error('a2aTool needs a url, a card with supportedInterfaces, or a client'));
    client ??= createClient(target, { ...options.clientOptions, ...(card && { card }) });
    client.catch(() => (client = undefined));
    return client;
  };
  return async function* call({ message, taskId }, signal) {
    const remote = await clientOf();
    const request: Message = { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: message }], ...(taskId && { taskId }) };
    const waitMs = options.cancelTimeoutMs ?? 5_000;
    let task: Task | undefined;
    try {
      const open = (sending: AbortSignal) => remote.stream('SendStreamingMessage', { message: request }, { signal: sending });
      for await (const { response } of untilAborted(open, signal, waitMs)) {
        if (!('message' in response)) task = applyResponse(task, response) ?? task;
        // An abort that waited for this first event: the catch cancels the task it names.
        if (signal?.aborted) throw abortReason(signal);
        if ('message' in response) {
          yield taskOutput(undefined, response.message);
          return;
        }
        if (task && options.progress !== false && !isTerminal(task.status.state)) yield taskOutput(task);
      }
    } catch (error) {
      // The task to cancel: the one the events named, else the one this call answers (no event came in time).
      const open = task ? (isTerminal(task.status.state) ? undefined : task.id) : taskId;
      if (signal?.aborted && open) await remote.cancelTask({ id: open }, { timeoutMs: waitMs }).catch(() => undefined);
      throw error;
    }
    if (!task) throw new Error('The remote agent ended its stream without a task or a message');
    yield taskOutput(task);
  };
}

/** The last value of a call of {@link remoteAgentCalls}: its final output. */
export async function finalOutput(outputs: AsyncIterable<A2AToolOutput>): Promise<A2AToolOutput> {
  let last: A2AToolOutput | undefined;
  for await (const output of outputs) last = output;
  return last!;
}

/** Why `signal` aborted (an `AbortError` when it gives no reason). */
function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The call was aborted', 'AbortError');
}

/**
 * The events of the source `open` makes (given the signal its request
 * follows) until `signal` aborts: then the iteration throws the signal's
 * reason at once, even while a transport still waits for its next event
 * (the gRPC stream of a quiet task does not end on abort by itself), and
 * the request is aborted and the source closed in the background. An abort
 * before the first event keeps the request open for up to `firstEventMs`
 * and yields that event if it comes (the caller, seeing `signal` aborted,
 * learns from it which task to cancel); without it in time, the request is
 * aborted and the reason thrown (also when the source fails or ends first).
 * Nothing is opened when `signal` has already aborted.
 */
async function* untilAborted<T>(
  open: (signal: AbortSignal) => AsyncIterable<T>,
  signal: AbortSignal | undefined,
  firstEventMs: number,
): AsyncGenerator<T> {
  if (signal?.aborted) throw abortReason(signal);
  const request = new AbortController();
  let seenFirst = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    const stop = () => {
      request.abort(abortReason(signal!));
      reject(abortReason(signal!));
    };
    onAbort = () => (seenFirst ? stop() : (timer = setTimeout(stop, firstEventMs)));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => undefined);
  const iterator = open(request.signal)[Symbol.asyncIterator]();
  try {
    while (true) {
      const next = iterator.next();
      // A next() still pending when the signal wins settles later: its outcome is not wanted.
      next.catch(() => undefined);
      let result: IteratorResult<T>;
      try {
        result = await Promise.race([next, aborted]);
      } catch (error) {
        // An abort that waited for the first event ends with its reason, whatever ended the wait.
        throw signal?.aborted ? abortReason(signal) : error;
      }
      if (result.done) {
        if (signal?.aborted) throw abortReason(signal);
        return;
      }
      seenFirst = true;
      clearTimeout(timer);
      yield result.value;
    }
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    request.abort();
    Promise.resolve(iterator.return?.()).catch(() => undefined);
  }
}

import type { CallOptions, StreamEvent } from '@taskwire/core';

/** What each answer and stream event was told about the agent's activated extensions. */
const ACTIVATED = new WeakMap<object, readonly string[]>();

/**
 * The extensions the agent activated for the call that produced `answer`:
 * a unary result or a stream event of an {@link A2AClient} call that asked
 * for extensions (the client's `extensions` option or the call's). `[]`
 * when it asked and none were activated; undefined for an answer of a call
 * that asked for none (or a value the client did not produce).
 */
export function activatedExtensions(answer: unknown): readonly string[] | undefined {
  return typeof answer === 'object' && answer !== null ? ACTIVATED.get(answer) : undefined;
}

/**
 * The call options of one client call asking for `asked` (none: `call` as it
 * is), and `mark`, which records on an answer what the transport reported.
 * The extensions travel as the call's `a2a-extensions` header.
 */
export function askExtensions<C extends CallOptions>(call: C, asked: readonly string[]): { call: C; mark<T>(answer: T): T } {
  if (asked.length === 0) return { call, mark: (answer) => answer };
  let activated: readonly string[] = [];
  const onExtensions = (uris: readonly string[]) => {
    activated = Object.freeze([...uris]);
    call.onExtensions?.(activated);
  };
  const headers = { ...call.headers, 'a2a-extensions': asked.join(',') };
  const mark = <T>(answer: T): T => {
    if (typeof answer === 'object' && answer !== null) ACTIVATED.set(answer, activated);
    return answer;
  };
  return { call: { ...call, headers, onExtensions }, mark };
}

/** The events of `events`, each marked with the activated set known when it arrived. */
export async function* markedEvents(events: AsyncIterable<StreamEvent>, mark: (event: StreamEvent) => StreamEvent): AsyncIterable<StreamEvent> {
  for await (const event of events) yield mark(event);
}

/** The client's and the call's extension URIs, each once, in that order. */
export function extensionsOf(client: readonly string[] | undefined, call: readonly string[] | undefined): readonly string[] {
  if (!call?.length) return client ?? [];
  if (!client?.length) return call;
  return [...new Set([...client, ...call])];
}

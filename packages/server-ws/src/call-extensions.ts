import type { CallContext } from '@taskwire/core';
import { ExtensionActivation, parseExtensionsHeader } from '@taskwire/core';

/**
 * The input member that carries a call's `A2A-Extensions` over this binding
 * (tRPC messages have no per-call headers), next to the operation's params;
 * taken out before the params reach the service. A call that sends it gets
 * its answer in the reply envelope: `{ result, extensions }` for a unary
 * call, `{ response, extensions }` for each stream event, `extensions`
 * being the URIs the agent activated. A call without it gets the bare
 * result or stream response, as before.
 */
export const EXTENSIONS_INPUT_KEY = 'a2a-extensions';

/** A unary answer in the extensions envelope. */
export interface ExtensionsReply<T> {
  readonly result: T;
  readonly extensions: readonly string[];
}

/** A stream event's data in the extensions envelope. */
export interface ExtensionsEvent<T> {
  readonly response: T;
  readonly extensions: readonly string[];
}

/**
 * `input` without its `a2a-extensions` member, and the call context with
 * the extensions it asked for (added to the connection's own) and their
 * activation; `activation` is undefined when the input has no such member.
 */
export function splitExtensions(input: unknown, call: CallContext): { params: unknown; call: CallContext; activation: ExtensionActivation | undefined } {
  if (typeof input !== 'object' || input === null || !(EXTENSIONS_INPUT_KEY in input)) return { params: input, call, activation: undefined };
  const { [EXTENSIONS_INPUT_KEY]: value, ...params } = input as Record<string, unknown>;
  const asked = parseExtensionsHeader(typeof value === 'string' ? value : Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : undefined) ?? [];
  const requested = [...new Set([...(call.extensions ?? []), ...asked])];
  const activation = new ExtensionActivation(requested);
  return { params, call: { ...call, extensions: requested.length > 0 ? requested : undefined, activation }, activation };
}

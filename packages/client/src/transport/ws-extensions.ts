import type { CallOptions } from '@taskwire/core';

/** True when a call asks for extensions, so its answer comes in the extensions envelope. */
export function asksExtensions(call: CallOptions | undefined): boolean {
  return call?.headers !== undefined && Object.keys(call.headers).some((name) => name.toLowerCase() === 'a2a-extensions');
}

/**
 * A value of the extensions envelope (`{ result, extensions }` of a unary
 * call, `{ response, extensions }` of a stream event): the value, after
 * telling `onExtensions` what the agent activated (a call that asked for
 * none has no envelope: `envelope` is the value, and nothing was activated).
 */
export function unwrapped(envelope: unknown, member: 'result' | 'response', call: CallOptions | undefined, enveloped: boolean): unknown {
  if (!enveloped) {
    call?.onExtensions?.([]);
    return envelope;
  }
  const { [member]: value, extensions } = envelope as Record<string, unknown>;
  call?.onExtensions?.(Array.isArray(extensions) ? extensions.filter((uri): uri is string => typeof uri === 'string') : []);
  return value;
}

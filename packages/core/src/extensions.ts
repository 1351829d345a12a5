import { A2AError } from './errors.js';
import type { AgentCard } from './schema/index.js';

/*
 * A2A extensions of one call: what the client asked for (the `A2A-Extensions`
 * service parameter) and what the agent activated, which goes back to the
 * client (the response's `A2A-Extensions` header, gRPC response metadata,
 * the WebSocket reply envelope). Sits below the service and the transports.
 */

/** The extensions a run's agent sees: `ctx.extensions`. */
export interface AgentExtensions {
  /** The extension URIs the request asked for, in the order sent (empty when none). */
  readonly requested: readonly string[];
  /**
   * Activates `uri` for this call: it is reported back to the client. Returns
   * true when it will be; false when the request did not ask for `uri`, or
   * when the answer has already begun (the set is decided at the agent's
   * first event, and a stream's header is sent when the stream opens). Call
   * it at the start of the run, before the first event.
   */
  activate(uri: string): boolean;
  /** The URIs activated so far, in activation order. */
  readonly activated: readonly string[];
}

/**
 * The extension exchange of one call, made by the transport that received
 * it and carried in `CallContext.activation`; the service hands it to the
 * agent as `ctx.extensions`. The transport calls {@link seal} when it writes
 * the answer's headers (a unary answer, a stream's opening) and reports what
 * it returns; the service seals it at the agent's first event and at the
 * end of the run, so one set is reported however the answer goes.
 */
export class ExtensionActivation implements AgentExtensions {
  readonly requested: readonly string[];
  #activated: string[] = [];
  #sealed = false;
  #whenSealed: { promise: Promise<void>; resolve: () => void } | undefined;

  constructor(requested: readonly string[] = []) {
    this.requested = requested;
  }

  activate(uri: string): boolean {
    if (this.#sealed || !this.requested.includes(uri)) return false;
    if (!this.#activated.includes(uri)) this.#activated.push(uri);
    return true;
  }

  get activated(): readonly string[] {
    return this.#activated;
  }

  /** True once {@link seal} was called: `activate` returns false from then on. */
  get sealed(): boolean {
    return this.#sealed;
  }

  /** Ends activation and returns the activated set (the same set on every call). */
  seal(): readonly string[] {
    this.#sealed = true;
    this.#whenSealed?.resolve();
    return this.#activated;
  }

  /** Resolves once {@link seal} was called (at once when it was). */
  whenSealed(): Promise<void> {
    if (this.#sealed) return Promise.resolve();
    if (this.#whenSealed === undefined) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.#whenSealed = { promise, resolve };
    }
    return this.#whenSealed.promise;
  }
}

/** An activation with nothing requested: what an agent sees when the call asked for no extension. */
export const NO_EXTENSIONS: AgentExtensions = Object.freeze({ requested: Object.freeze([]) as readonly string[], activated: Object.freeze([]) as readonly string[], activate: () => false });

/**
 * The URIs of an `A2A-Extensions` value (comma-separated, blanks trimmed and
 * dropped; several header lines may each hold a list). Undefined when there
 * are none.
 */
export function parseExtensionsHeader(value: string | readonly string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const lines = typeof value === 'string' ? [value] : value;
  const uris = lines.flatMap((line) => line.split(',')).map((uri) => uri.trim()).filter((uri) => uri !== '');
  return uris.length > 0 ? [...new Set(uris)] : undefined;
}

/** The `A2A-Extensions` value of a URI list: comma-separated, as the spec asks for one header field. */
export function formatExtensionsHeader(uris: readonly string[]): string {
  return uris.join(',');
}

/**
 * Refuses a call that does not ask for every extension `card` marks
 * `required: true`: throws `ExtensionSupportRequired` (-32008) naming the
 * missing URIs. Does nothing without a card or required extensions.
 */
export function requireExtensions(card: AgentCard | undefined, requested: readonly string[] | undefined): void {
  const declared = card?.capabilities.extensions;
  if (!declared) return;
  const missing = declared.filter((extension) => extension.required === true && !requested?.includes(extension.uri)).map((extension) => extension.uri);
  if (missing.length === 0) return;
  throw new A2AError(
    'ExtensionSupportRequired',
    `This agent requires the extension${missing.length > 1 ? 's' : ''} ${missing.join(', ')}; send ${missing.length > 1 ? 'them' : 'it'} in the A2A-Extensions header (gRPC metadata a2a-extensions) if your client supports ${missing.length > 1 ? 'them' : 'it'}`,
    { extensions: missing.join(',') },
  );
}

/**
 * The extensions to pass on when an agent calls another agent: those of
 * `requested` (what its own caller asked for, `ctx.extensions.requested`)
 * that the callee's `card` declares, in the requested order. None without
 * a card. Give them to the call (`@taskwire/client`'s `extensions` option).
 */
export function forwardableExtensions(requested: readonly string[], card: AgentCard | undefined): string[] {
  const declared = new Set(card?.capabilities.extensions?.map((extension) => extension.uri));
  return requested.filter((uri) => declared.has(uri));
}

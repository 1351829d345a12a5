import { WS_PROTOCOL_BINDING } from '@taskwire/core';
import type { A2AClient } from '../client.js';
import { UsageError } from './args.js';

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
/** A host without a scheme: `localhost`, a dotted name or address, an IPv6 literal, or any name with a port; then an optional path. */
const HOST = /^(?:localhost|\[[0-9a-f:.]+\]|[a-z0-9-]+(?:\.[a-z0-9-]+)+|[a-z0-9-]+(?=:\d))(?::\d{1,5})?(?:\/\S*)?$/i;

/**
 * An agent URL as typed: with a scheme it is taken as is; a bare host
 * (`127.0.0.1:41241`, `localhost:8080`, `agent.example.com/a2a`) gets
 * `http://`. Anything else (a task id, say) is not a URL: undefined.
 */
export function agentUrl(value: string | undefined): string | undefined {
  if (!value) return undefined;
  if (SCHEME.test(value)) return value;
  return HOST.test(value) ? `http://${value}` : undefined;
}

/** Short names `--transport` accepts beside the card's binding names. */
const ALIASES: Readonly<Record<string, string>> = { ws: WS_PROTOCOL_BINDING, websocket: WS_PROTOCOL_BINDING };

/** How a binding is shown to people (the WebSocket binding is a URI). */
export function bindingName(binding: string): string {
  return binding === WS_PROTOCOL_BINDING ? `WebSocket (${binding})` : binding;
}

/**
 * The bindings named by `--transport`, in order, as the card spells them.
 * Names are matched without regard to case, and `ws` / `websocket` name the
 * WebSocket binding. Throws a {@link UsageError} listing the bindings this
 * CLI speaks (`known`) for any other name.
 */
export function preferredBindings(given: readonly string[], known: readonly string[]): string[] {
  return given.map((name) => {
    const match = known.find((binding) => binding.toLowerCase() === name.toLowerCase()) ?? (known.includes(ALIASES[name.toLowerCase()] ?? '') ? ALIASES[name.toLowerCase()] : undefined);
    if (match === undefined) {
      const names = known.map((b) => (b === WS_PROTOCOL_BINDING ? 'WS' : b)).join(', ');
      throw new UsageError(`--transport ${name} is not a transport this CLI speaks; use one of ${names}`);
    }
    return match;
  });
}

/** The `--verbose` line about a client: the binding, version and endpoint it talks to. */
export function describeConnection(client: A2AClient): string {
  const iface = client.interface;
  if (!iface) return 'taskwire: connected (no card interface)\n';
  return `taskwire: using ${bindingName(iface.protocolBinding)} ${iface.protocolVersion} at ${iface.url}\n`;
}

import type { AgentCard, VerifyAgentCardOptions } from '@taskwire/core';
import type { PinnedVersion, TransportRegistry } from './agent-card.js';
import { withMissingCredentialHint } from './auth/bearer-transport.js';
import { withCredentialGuard } from './auth/credential-guard.js';
import { CredentialScope, credentialHeaderNames } from './auth/origins.js';
import type { TokenProvider } from './auth/token-provider.js';
import { fetchAgentCard, parseAgentCard, requireSignedCard, selectInterface } from './agent-card.js';
import type { ClientOptions } from './client.js';
import { A2AClient } from './client.js';
import { DEFAULT_TRANSPORTS } from './default-transports.js';

/** Options of {@link createClient}. */
export interface CreateClientOptions extends Omit<ClientOptions, 'card' | 'tenant' | 'version' | 'interface'> {
  /** The agent's card (v1.0 or v0.3 shape), instead of fetching it from the URL. */
  readonly card?: AgentCard | Record<string, unknown>;
  /** Bindings in the order you prefer them (default: the card's order). */
  readonly preferred?: readonly string[];
  /** Transport factories by binding, added to (and overriding) {@link DEFAULT_TRANSPORTS}. */
  readonly transports?: TransportRegistry;
  /** The `fetch` for the card and the fetch transports. */
  readonly fetch?: typeof fetch;
  /**
   * Bearer tokens for every call, on every transport (`staticToken`,
   * `clientCredentials`, `tokenCallback`): a call refused as
   * Unauthenticated is retried once with a fresh token. Without `auth` or
   * credential headers, a refusal names what the card's security
   * requirements ask for.
   */
  readonly auth?: TokenProvider;
  /**
   * Headers for the card request and every call (e.g. `x-api-key`), given
   * to the transport. Any header but the protocol's own (`a2a-version`,
   * `a2a-extensions`, trace context) counts as a credential: it goes only
   * where `auth` may go (see `trustedOrigins`).
   */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Origins besides the one of `url` that may receive your credentials
   * (`auth`, credential `headers`, headers added by interceptors), each an
   * origin (`https://grpc.agent.example`), a URL on it, or a gRPC
   * `host:port`. A card naming an interface elsewhere, or a redirect
   * leading elsewhere, never widens this: with credentials, such an
   * interface is not used (`createClient` throws a `CredentialOriginError`
   * when no other is left) and such a redirect is refused. Scheme, host and
   * port all count: an `https` URL does not trust its `http` twin.
   */
  readonly trustedOrigins?: readonly string[];
  /** Aborts fetching the card. */
  readonly signal?: AbortSignal;
  /**
   * Trust the card only when one of its signatures verifies with these keys
   * (core's `verifyAgentCard` on the card as received); otherwise
   * `createClient` throws an `AgentCardError` and contacts no interface.
   */
  readonly verifyCard?: VerifyAgentCardOptions;
  /**
   * The protocol version to speak, whatever the chosen interface announces
   * (a 0.3 interface stays 0.3). Default: the interface's own, so `1.1`
   * (the A2A 1.1 draft: task generations, long-poll GetTask) when it
   * announces 1.1, else 1.0. Pin `1.1` to speak it to an agent whose card
   * says 1.0 but that serves 1.1, `1.0` to keep 1.0 with one that says 1.1.
   */
  readonly protocolVersion?: PinnedVersion;
}

/**
 * Connects to the agent at `url`: reads its card (from
 * `/.well-known/agent-card.json` at the URL's origin, or `options.card`),
 * picks the first interface it has a transport for (see `selectInterface`),
 * and returns a client that sends the interface's `tenant` with every
 * request and speaks the interface's protocol version (1.1 when it
 * announces 1.1, unless `protocolVersion` pins another). Credentials go only
 * to the origin of `url` and to `trustedOrigins` (see there).
 */
export async function createClient(url: string | URL, options: CreateClientOptions = {}): Promise<A2AClient> {
  const { card: given, preferred, transports, fetch, headers, signal, verifyCard, auth, trustedOrigins, protocolVersion, ...clientOptions } = options;
  const scope = new CredentialScope(String(url), trustedOrigins);
  if (given && verifyCard) await requireSignedCard(given, verifyCard);
  const card = given ? parseAgentCard(given) : await fetchAgentCard(url, { fetch, headers, signal, verify: verifyCard, trustedOrigins });
  const registry = { ...DEFAULT_TRANSPORTS, ...transports };
  const selected = selectInterface(card, registry, { preferred, fetch, headers, token: auth, scope, version: protocolVersion });
  const guarded = withCredentialGuard(selected.transport, selected.iface.url, scope);
  const credentials = auth || credentialHeaderNames(headers).length > 0;
  return new A2AClient(credentials ? guarded : withMissingCredentialHint(guarded, card), {
    ...clientOptions,
    card,
    tenant: selected.iface.tenant || undefined,
    version: selected.version,
    interface: selected.iface,
  });
}

import type { AgentCard, AgentInterface, ServerVersion, Transport, VerifyAgentCardOptions } from '@taskwire/core';
import { A2AError, agentCardToV1, AgentInterfaceSchema, issuePath, negotiateVersion, NEXT_VERSION, verifyAgentCard } from '@taskwire/core';
import { CredentialScope, credentialHeaderNames } from './auth/origins.js';
import { fetchInScope } from './auth/redirects.js';
import type { TokenProvider } from './auth/token-provider.js';
import { TransientError } from './transient.js';

/** Where agents publish their card, relative to their origin. */
export const AGENT_CARD_PATH = '/.well-known/agent-card.json';

/** What a transport factory gets: the selected interface, and the settings given to `createClient`. */
export interface TransportTarget {
  readonly url: string;
  /** `JSONRPC`, `HTTP+JSON`, `GRPC`, or a binding URI (e.g. the WebSocket binding's). */
  readonly binding: string;
  readonly tenant: string | undefined;
  /**
   * The version to speak, from the interface's `protocolVersion` (or the
   * version `createClient` was pinned to): `1.0`, `0.3`, or `1.1` (the A2A
   * 1.1 draft), for which `headers` already carry `a2a-version: 1.1`.
   */
  readonly version: ServerVersion;
  readonly fetch: typeof fetch | undefined;
  /** `createClient`'s headers; with `a2a-version: 1.1` added first when `version` is 1.1 (so a factory that passes them on speaks 1.1). */
  readonly headers: Readonly<Record<string, string>> | undefined;
  /** Where the transport gets bearer tokens (`createClient`'s `auth`), if anywhere. */
  readonly token?: TokenProvider | undefined;
  /**
   * The origins that may receive `headers` and `token` (the URL the user
   * gave, and `trustedOrigins`), for the transport to keep redirects within
   * them; `createClient` only makes a transport with credentials for an
   * interface on one of them. Undefined: the origin of `url` alone.
   */
  readonly trustedOrigins?: readonly string[] | undefined;
}

/** Makes a transport for an interface, or returns `undefined` when it cannot speak it (e.g. that version). */
export type TransportFactory = (target: TransportTarget) => Transport | undefined;

/** Transport factories by binding name (`JSONRPC`, `HTTP+JSON`, `GRPC`, a binding URI). */
export type TransportRegistry = Readonly<Record<string, TransportFactory>>;

/** The interface `selectInterface` picked, and the transport made for it. */
export interface SelectedInterface {
  readonly iface: AgentInterface;
  readonly version: ServerVersion;
  readonly transport: Transport;
}

/** The agent card could not be used: the URL answers, but not with a card, or with one offering no interface this client can speak. */
export class AgentCardError extends Error {
  override readonly name = 'AgentCardError';
}

/** The card URL for an agent URL: the URL itself when it names a `.json` file, else `/.well-known/agent-card.json` at its origin. */
export function agentCardUrl(url: string | URL): string {
  const parsed = new URL(url);
  if (parsed.pathname.endsWith('.json')) return parsed.href;
  return new URL(AGENT_CARD_PATH, parsed.origin).href;
}

/**
 * Reads an agent card as v1.0: a v0.3 card (`url`, `preferredTransport`,
 * `additionalInterfaces`) is converted; the interfaces must be valid (they
 * are all a client needs), other fields are taken as they are. Throws an
 * error naming the bad field otherwise.
 */
export function parseAgentCard(value: unknown, source = 'the agent card'): AgentCard {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AgentCardError(`${source} is not a JSON object; check that the URL points at an A2A agent`);
  }
  const card = agentCardToV1(value);
  const interfaces = AgentInterfaceSchema.array().min(1, 'lists no interface').safeParse(card.supportedInterfaces);
  if (!interfaces.success) {
    const issue = interfaces.error.issues[0]!;
    throw new AgentCardError(`${source} has no usable supportedInterfaces (${issuePath(['supportedInterfaces', ...issue.path])}: ${issue.message})`);
  }
  return { ...card, supportedInterfaces: interfaces.data, capabilities: card.capabilities ?? {} };
}

/** Options of {@link fetchAgentCard}. */
export interface FetchCardOptions {
  readonly fetch?: typeof fetch | undefined;
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly signal?: AbortSignal | undefined;
  /** When set, the card must carry a signature that verifies with these keys (see {@link requireSignedCard}). */
  readonly verify?: VerifyAgentCardOptions | undefined;
  /** Origins besides `url`'s that `headers` may follow a redirect to (see `fetchInScope`). */
  readonly trustedOrigins?: readonly string[] | undefined;
}

/**
 * Checks the card as received (before any conversion) with core's
 * `verifyAgentCard`: resolves when one of its signatures verifies with a key
 * `verify.keys` returns, else throws an {@link AgentCardError} that lists why
 * each signature failed (or that the card has none).
 */
export async function requireSignedCard(value: unknown, verify: VerifyAgentCardOptions, source = 'the agent card'): Promise<void> {
  const result = await verifyAgentCard(value as AgentCard, verify);
  if (!result.verified) {
    throw new AgentCardError(`${source} is not signed by a key you trust (${result.reasons.join('; ')}); do not use this agent, or check your keys`);
  }
}

/**
 * Fetches and parses the card of the agent at `url` (see {@link agentCardUrl},
 * {@link parseAgentCard}). Redirects are followed, but `headers` that may
 * carry a credential never go to an origin other than `url`'s or one in
 * `trustedOrigins`: such a redirect fails with a `CredentialOriginError`.
 * Throws a {@link TransientError} when the agent cannot be reached, an
 * {@link AgentCardError} when the answer is no card.
 */
export async function fetchAgentCard(url: string | URL, options: FetchCardOptions = {}): Promise<AgentCard> {
  const cardUrl = agentCardUrl(url);
  let response: Response;
  try {
    const request = { method: 'GET', headers: { accept: 'application/json', ...options.headers }, signal: options.signal };
    response = await fetchInScope(options.fetch ?? fetch, cardUrl, request, new CredentialScope(String(url), options.trustedOrigins), `Fetching the agent card at ${cardUrl}`);
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (error instanceof A2AError) throw error;
    throw new TransientError(`Could not fetch the agent card at ${cardUrl} (${(error as Error).message}); check the URL and that the agent is running`, {
      cause: error,
    });
  }
  if (!response.ok) {
    throw new AgentCardError(`The agent card at ${cardUrl} answered HTTP ${response.status}; check the URL (the card is served at ${AGENT_CARD_PATH})`);
  }
  let json: unknown;
  try {
    json = await response.json();
  } catch {
    throw new AgentCardError(`The agent card at ${cardUrl} is not JSON; check that the URL points at an A2A agent`);
  }
  if (options.verify) await requireSignedCard(json, options.verify, `The agent card at ${cardUrl}`);
  return parseAgentCard(json, `The agent card at ${cardUrl}`);
}

/** The version an interface is spoken in: what it announces (1.1 included), or `pinned` for a 1.x one; undefined when it announces none this client speaks. */
function versionOf(iface: AgentInterface, pinned: PinnedVersion | undefined): ServerVersion | undefined {
  let announced: ServerVersion;
  try {
    announced = negotiateVersion(iface.protocolVersion, { next: true });
  } catch {
    return undefined;
  }
  return pinned && announced !== '0.3' ? pinned : announced;
}

/** The 1.x versions `createClient` can be pinned to (`protocolVersion`). */
export type PinnedVersion = '1.0' | typeof NEXT_VERSION;

/** The headers a transport for `version` gets: `a2a-version: 1.1` first for 1.1 (a header of the caller's own still wins). */
function headersFor(version: ServerVersion, headers: Readonly<Record<string, string>> | undefined): Readonly<Record<string, string>> | undefined {
  return version === NEXT_VERSION ? { 'a2a-version': NEXT_VERSION, ...headers } : headers;
}

/** Settings of {@link selectInterface}: preferences, and what `createClient` was given. */
export interface SelectSettings {
  readonly preferred?: readonly string[] | undefined;
  readonly fetch?: typeof fetch | undefined;
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly token?: TokenProvider | undefined;
  /**
   * The origins that may receive `headers` and `token`. When given and
   * they carry a credential (a token, or any header but the protocol's),
   * interfaces on other origins are never chosen (see {@link selectInterface}).
   */
  readonly scope?: CredentialScope | undefined;
  /** Speak this version on the chosen interface, whatever its 1.x `protocolVersion` says (a 0.3 interface stays 0.3). */
  readonly version?: PinnedVersion | undefined;
}

/**
 * Picks the interface to talk to, as the spec says: the first entry of the
 * card's `supportedInterfaces` (in the card's order, or in the order of
 * `preferred` bindings when given; bindings not listed come after) whose
 * binding has a factory in `registry` that can speak its version. Throws
 * an error that lists what the card offers and what is registered.
 *
 * With credentials and a `scope`, an interface outside the scope is
 * skipped; a `CredentialOriginError` naming `trustedOrigins` is thrown
 * when no interface is left, or when a binding named in `preferred` is
 * offered only outside it (rather than quietly talking another binding).
 *
 * An interface announcing `1.1` (the A2A 1.1 draft) is spoken as 1.1, and
 * as 1.0 by a factory that returns `undefined` for 1.1 (a 1.1 server serves
 * 1.0 too); `settings.version` pins the version of 1.x interfaces instead.
 */
export function selectInterface(card: AgentCard, registry: TransportRegistry, settings: SelectSettings = {}): SelectedInterface {
  const rank = (binding: string) => {
    const at = settings.preferred?.indexOf(binding) ?? -1;
    return at < 0 ? Number.MAX_SAFE_INTEGER : at;
  };
  const scope = settings.token || credentialHeaderNames(settings.headers).length > 0 ? settings.scope : undefined;
  const candidates = card.supportedInterfaces
    .map((iface, order) => ({ iface, order, version: versionOf(iface, settings.version) }))
    .sort((a, b) => rank(a.iface.protocolBinding) - rank(b.iface.protocolBinding) || a.order - b.order);
  let refused: AgentInterface | undefined;
  for (const { iface, version } of candidates) {
    const factory = Object.hasOwn(registry, iface.protocolBinding) ? registry[iface.protocolBinding] : undefined;
    if (!factory || !version) continue;
    if (scope && !scope.allows(iface.url)) {
      refused ??= iface;
      continue;
    }
    // A preferred binding offered only where the credentials may not go: say so, rather than talk another one.
    if (refused && scope && rank(refused.protocolBinding) < rank(iface.protocolBinding)) break;
    const make = (speak: ServerVersion) =>
      factory({
        url: iface.url,
        binding: iface.protocolBinding,
        tenant: iface.tenant || undefined,
        version: speak,
        fetch: settings.fetch,
        headers: headersFor(speak, settings.headers),
        token: settings.token,
        ...(settings.scope && { trustedOrigins: [...settings.scope.origins] }),
      });
    const transport = make(version);
    if (transport) return { iface, version, transport };
    const fallback = version === NEXT_VERSION && !settings.version ? make('1.0') : undefined;
    if (fallback) return { iface, version: '1.0', transport: fallback };
  }
  if (refused && scope) throw scope.refusal(refused.url, `The ${refused.protocolBinding} interface of agent "${card.name}" at ${refused.url}`);
  const offered = card.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion} at ${i.url}`).join('; ');
  throw new AgentCardError(
    `No transport for any interface of agent "${card.name}" (it offers: ${offered}; registered: ${Object.keys(registry).join(', ') || 'none'}). ` +
      "Register a factory for one of them in createClient's `transports` (grpcTransport from '@taskwire/client/grpc', wsTransport from '@taskwire/client/ws')",
  );
}

import type { AgentCard, AgentInterface } from '@taskwire/core';
import { WS_PROTOCOL_BINDING } from '@taskwire/core';
import type { TransportRegistry } from '@taskwire/client';
import { A2AClient, DEFAULT_TRANSPORTS, selectInterface } from '@taskwire/client';
import { grpcTransport } from '@taskwire/client/grpc';
import { wsTransport } from '@taskwire/client/ws';
import { fetchWithoutRedirects, mayCarryCredentials } from './credential-scope.js';

/**
 * Every transport the inspector speaks, by binding: JSON-RPC (v1.0 and
 * v0.3) and HTTP+JSON over `fetch`, gRPC and WebSocket (v1.0) through this
 * Node process, so the page needs neither CORS nor gRPC.
 */
export const INSPECTOR_TRANSPORTS: TransportRegistry = {
  ...DEFAULT_TRANSPORTS,
  GRPC: (t) => (t.version === '1.0' ? grpcTransport({ url: t.url, ...(t.headers && { metadata: t.headers }) }) : undefined),
  [WS_PROTOCOL_BINDING]: (t) => (t.version === '1.0' ? wsTransport({ url: t.url, ...(t.headers && { headers: t.headers }) }) : undefined),
};

/** The bindings the inspector knows, as the card spells them. */
export const KNOWN_BINDINGS: readonly string[] = Object.keys(INSPECTOR_TRANSPORTS);

/**
 * Credentials the page entered (or the command's flags); kept in memory for
 * one request, never written anywhere. They go to the agent's own origin
 * (the URL the user named) and to `trustedOrigins` only.
 */
export interface Credentials {
  readonly apiKey?: string | undefined;
  readonly bearer?: string | undefined;
  /** Other origins that may receive them (e.g. `http://127.0.0.1:50051` for a gRPC interface on another port). */
  readonly trustedOrigins?: readonly string[] | undefined;
}

/** Whether `credentials` hold something to send. */
export const hasCredentials = (credentials: Credentials | undefined): boolean => Boolean(credentials?.apiKey || credentials?.bearer);

/** `credentials` when `target` may receive them (the origin of `agentUrl` or a trusted one), else none. */
export function credentialsFor(target: string, agentUrl: string | undefined, credentials: Credentials | undefined): Credentials | undefined {
  return credentials && mayCarryCredentials(target, agentUrl, credentials.trustedOrigins) ? credentials : undefined;
}

/** The headers that carry `credentials` (`x-api-key`, `authorization: Bearer`). */
export function credentialHeaders(credentials: Credentials | undefined): Record<string, string> {
  return {
    ...(credentials?.apiKey && { 'x-api-key': credentials.apiKey }),
    ...(credentials?.bearer && { authorization: `Bearer ${credentials.bearer}` }),
  };
}

/**
 * A client for one interface of `card` (the one at `index` of
 * `supportedInterfaces`), or for the interface the client would pick when
 * `index` is undefined. No retries, no resumption, no redirects followed:
 * the inspector shows what the agent does, not what the client smooths
 * over. `credentials` go with the calls only when the interface is on the
 * origin of `agentUrl` (the URL the user named) or on one of their
 * `trustedOrigins`; elsewhere it is called without them. Throws the
 * client's `AgentCardError` when the inspector cannot speak that interface.
 */
export function clientFor(card: AgentCard, index: number | undefined, credentials?: Credentials, agentUrl?: string): A2AClient {
  const only = index === undefined ? card : { ...card, supportedInterfaces: [card.supportedInterfaces[index]].filter((i): i is AgentInterface => i !== undefined) };
  const registry: TransportRegistry = Object.fromEntries(
    Object.entries(INSPECTOR_TRANSPORTS).map(([binding, factory]) => [binding, (t) => factory({ ...t, fetch: fetchWithoutRedirects, headers: credentialHeaders(credentialsFor(t.url, agentUrl, credentials)) })]),
  );
  const selected = selectInterface(only, registry);
  return new A2AClient(selected.transport, {
    card,
    tenant: selected.iface.tenant || undefined,
    version: selected.version,
    interface: selected.iface,
    retry: false,
    resume: false,
    telemetry: false,
  });
}

import type { AgentCard, CallOptions, ParamsOf, ResultOf, StreamEvent, StreamMethodName, Transport, UnaryMethodName } from '@taskwire/core';
import { A2AError } from '@taskwire/core';
import { TransientError } from '../transient.js';
import type { TokenProvider } from './token-provider.js';

const isUnauthenticated = (error: unknown): boolean => A2AError.is(error) && error.kind === 'Unauthenticated';

/**
 * `transport` with `Authorization: Bearer <token>` from `provider` on every
 * call (HTTP headers, gRPC metadata). A call the server refuses as
 * `Unauthenticated` is sent once more with a fresh token (a stream only
 * when it was refused before its first event); a second refusal is the
 * caller's. A stream the server ends as `Unauthenticated` after events
 * (its token's `exp` passed) fails as a {@link TransientError}, a drop the
 * client's resumption picks up, and the next call carries a fresh token. Without a provider, `transport` itself.
 */
export function withBearerToken(transport: Transport, provider: TokenProvider | undefined): Transport {
  if (!provider) return transport;
  // Set when a stream's credential ended mid-stream: the next call asks the provider for a fresh token.
  let renew = false;
  const headersOf = async (options: CallOptions | undefined, fresh: boolean): Promise<CallOptions> => {
    const token = await provider.token({ fresh: fresh || renew, ...(options?.signal && { signal: options.signal }) });
    renew = false;
    return { ...options, headers: { ...options?.headers, authorization: `Bearer ${token}` } };
  };
  return {
    async unary<M extends UnaryMethodName>(method: M, params: ParamsOf<M>, options?: CallOptions): Promise<ResultOf<M>> {
      try {
        return await transport.unary(method, params, await headersOf(options, false));
      } catch (error) {
        if (!isUnauthenticated(error)) throw error;
        return transport.unary(method, params, await headersOf(options, true));
      }
    },
    async *stream<M extends StreamMethodName>(method: M, params: ParamsOf<M>, options?: CallOptions): AsyncIterable<StreamEvent> {
      let delivered = false;
      try {
        for await (const event of transport.stream(method, params, await headersOf(options, false))) {
          delivered = true;
          yield event;
        }
        return;
      } catch (error) {
        if (delivered && isUnauthenticated(error)) {
          // The server ended the stream when its credential expired (or was withdrawn): a drop, which the
          // client resumes (SubscribeToTask from the last event) with a fresh token.
          renew = true;
          throw new TransientError('The stream ended because its credential expired; resuming with a fresh token', { cause: error });
        }
        if (delivered || !isUnauthenticated(error)) throw error;
      }
      yield* transport.stream(method, params, await headersOf(options, true));
    },
    close: () => transport.close?.() ?? Promise.resolve(),
  };
}

/** The schemes of a card's security requirements, described for a person: `oidc (OpenID Connect, ...)`. */
export function describeSecurity(card: AgentCard): string | undefined {
  const requirements = card.securityRequirements ?? [];
  if (requirements.length === 0 || requirements.some((r) => Object.keys(r.schemes).length === 0)) return undefined;
  const describe = (name: string, scopes: readonly string[]): string => {
    const scheme = card.securitySchemes?.[name];
    const what = scheme?.openIdConnectSecurityScheme
      ? `OpenID Connect, discovery at ${scheme.openIdConnectSecurityScheme.openIdConnectUrl}`
      : scheme?.oauth2SecurityScheme
        ? 'OAuth 2.0'
        : scheme?.httpAuthSecurityScheme
          ? `HTTP ${scheme.httpAuthSecurityScheme.scheme}${scheme.httpAuthSecurityScheme.bearerFormat ? ` ${scheme.httpAuthSecurityScheme.bearerFormat}` : ''}`
          : scheme?.apiKeySecurityScheme
            ? `API key in ${scheme.apiKeySecurityScheme.location} ${scheme.apiKeySecurityScheme.name}`
            : scheme?.mtlsSecurityScheme
              ? 'a TLS client certificate'
              : 'a scheme the card does not describe';
    return `${name} (${what}${scopes.length ? `; scopes ${scopes.join(' ')}` : ''})`;
  };
  return requirements.map((r) => Object.entries(r.schemes).map(([name, { list }]) => describe(name, list)).join(' and ')).join(', or ');
}

/**
 * `transport` for a client configured with no credential: a call refused
 * as `Unauthenticated` fails with an A2AError that names what the card's
 * security requirements ask for and how to configure it.
 */
export function withMissingCredentialHint(transport: Transport, card: AgentCard): Transport {
  const required = describeSecurity(card);
  if (!required) return transport;
  const explain = (error: unknown): unknown =>
    isUnauthenticated(error)
      ? new A2AError(
          'Unauthenticated',
          `${card.name} requires credentials and none is configured: it accepts ${required}. Pass auth (a token provider: staticToken, clientCredentials) or headers to createClient (CLI: --token, --client-id with --issuer or --token-url, --api-key)`,
          (error as A2AError).metadata,
        )
      : error;
  return {
    unary: (method, params, options) => transport.unary(method, params, options).catch((error: unknown) => Promise.reject(explain(error))),
    async *stream(method, params, options) {
      try {
        yield* transport.stream(method, params, options);
      } catch (error) {
        throw explain(error);
      }
    },
    close: () => transport.close?.() ?? Promise.resolve(),
  };
}

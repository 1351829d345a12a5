import type { CallOptions, Transport } from '@taskwire/core';
import type { CredentialScope } from './origins.js';
import { credentialHeaderNames } from './origins.js';

/**
 * `transport` (which talks to `url`) refusing every call that carries a
 * credential header (added by an interceptor, say) when `url` is outside
 * `scope`: the call fails with a `CredentialOriginError` naming
 * `trustedOrigins`, nothing sent. Inside the scope, `transport` itself.
 * Covers every binding (gRPC metadata and WebSocket calls included), since
 * it looks at the call before any transport does.
 */
export function withCredentialGuard(transport: Transport, url: string, scope: CredentialScope): Transport {
  if (scope.allows(url)) return transport;
  const check = (call: CallOptions | undefined): void => {
    const names = credentialHeaderNames(call?.headers);
    if (names.length > 0) throw scope.refusal(url, `A call carrying ${names.join(', ')} to ${url}`);
  };
  return {
    unary(method, params, options) {
      try {
        check(options);
      } catch (error) {
        return Promise.reject(error);
      }
      return transport.unary(method, params, options);
    },
    async *stream(method, params, options) {
      check(options);
      yield* transport.stream(method, params, options);
    },
    close: () => transport.close?.() ?? Promise.resolve(),
  };
}

import type { JwtAuthOptions } from '@taskwire/auth';
import { cardSecurity, jwtAuth, SCOPES, scopePolicy } from '@taskwire/auth';
import type { TestClient, TestIdp } from '@taskwire/auth/testing';
import { startTestIdp } from '@taskwire/auth/testing';
import { referenceAgentCard } from '@taskwire/reference-agent';
import type { TwoPrincipalHost } from './two-principals.js';
import { serveTwoPrincipals } from './two-principals.js';

/** The audience (resource indicator) the test provider issues tokens for. */
export const AUDIENCE = 'https://agent.taskwire.test/a2a';

/** The provider's clients: alice and bob may do everything, the reader may only read, the pusher lacks push. */
export const CLIENTS = {
  alice: { clientId: 'alice', clientSecret: 'secret-of-alice-0123456789', scopes: ['tasks:read', 'tasks:write', 'tasks:push'] },
  bob: { clientId: 'bob', clientSecret: 'secret-of-bob-0123456789', scopes: ['tasks:read', 'tasks:write', 'tasks:push'] },
  reader: { clientId: 'reader', clientSecret: 'secret-of-reader-0123456789', scopes: ['tasks:read'] },
  writer: { clientId: 'writer', clientSecret: 'secret-of-writer-0123456789', scopes: ['tasks:read', 'tasks:write'] },
} as const satisfies Record<string, TestClient>;

/** The extended card the OIDC host serves to authenticated callers. */
export const EXTENDED_CARD_NAME = 'Reference agent (extended)';

/** A host whose callers authenticate with JWTs from a real OpenID provider, authorized by scopes. */
export interface OidcHost extends TwoPrincipalHost {
  readonly idp: TestIdp;
  /** `Authorization: Bearer <jwt>` headers for a client of {@link CLIENTS} (a fresh token). */
  bearer(client: keyof typeof CLIENTS): Promise<Record<string, string>>;
}

/**
 * Starts `oidc-provider` on 127.0.0.1 (clients of {@link CLIENTS}) and the
 * two-principal host with `jwtAuth` (keys discovered from the provider)
 * and the default `scopePolicy` on every binding.
 */
export async function serveOidcPrincipals(verifier: Partial<JwtAuthOptions> = {}): Promise<OidcHost> {
  const idp = await startTestIdp({ audience: AUDIENCE, clients: Object.values(CLIENTS) });
  const auth = jwtAuth({ issuer: idp.issuer, audience: AUDIENCE, ...verifier });
  let host: TwoPrincipalHost;
  try {
    host = await serveTwoPrincipals({
      auth,
      authorize: scopePolicy(),
      extendedCard: { ...referenceAgentCard([]), name: EXTENDED_CARD_NAME },
      security: cardSecurity({ oidc: { issuer: idp.issuer, scopes: [SCOPES.read, SCOPES.write] } }),
    });
  } catch (error) {
    await idp.close();
    throw error;
  }
  return {
    ...host,
    idp,
    bearer: async (client) => ({ authorization: `Bearer ${await idp.token(CLIENTS[client])}` }),
    async close() {
      await host.close();
      await idp.close();
    },
  };
}

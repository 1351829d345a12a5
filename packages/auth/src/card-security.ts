import type { AgentCard, SecurityScheme } from '@taskwire/core';
import { discoveryUrl } from './discovery.js';

/**
 * What the agent accepts, for its card. Each scheme given becomes one
 * entry of `securitySchemes` and one alternative of
 * `securityRequirements` (a client satisfies any one of them).
 */
export interface CardSecurityOptions {
  /** OpenID Connect: the issuer (the card carries its discovery URL) and the scopes a caller should ask for. */
  readonly oidc?: { readonly issuer: string; readonly scopes?: readonly string[]; readonly description?: string };
  /** HTTP bearer with JWTs (`Authorization: Bearer <jwt>`), without saying where tokens come from. */
  readonly bearer?: boolean | { readonly scopes?: readonly string[]; readonly description?: string };
  /** An API key (default in the `x-api-key` header). */
  readonly apiKey?: boolean | { readonly name?: string; readonly location?: 'header' | 'query' | 'cookie'; readonly description?: string };
  /** Mutual TLS: the caller presents a client certificate. */
  readonly mtls?: boolean | { readonly description?: string };
}

/** Scheme names the card uses for each kind. */
export const SCHEME_NAMES = { oidc: 'oidc', bearer: 'bearer', apiKey: 'apiKey', mtls: 'mtls' } as const;

type Entry = readonly [name: string, scheme: SecurityScheme, scopes: readonly string[]];

const objectOf = <T extends object>(value: boolean | T | undefined): T | undefined => (value === true ? ({} as T) : value || undefined);

function entries(options: CardSecurityOptions): Entry[] {
  const out: Entry[] = [];
  const { oidc } = options;
  if (oidc) {
    const scheme = { openIdConnectUrl: discoveryUrl(oidc.issuer), ...(oidc.description && { description: oidc.description }) };
    out.push([SCHEME_NAMES.oidc, { openIdConnectSecurityScheme: scheme }, oidc.scopes ?? []]);
  }
  const bearer = objectOf(options.bearer);
  if (bearer) {
    const scheme = { scheme: 'Bearer', bearerFormat: 'JWT', ...(bearer.description && { description: bearer.description }) };
    out.push([SCHEME_NAMES.bearer, { httpAuthSecurityScheme: scheme }, bearer.scopes ?? []]);
  }
  const apiKey = objectOf(options.apiKey);
  if (apiKey) {
    const scheme = { location: apiKey.location ?? 'header', name: apiKey.name ?? 'x-api-key', ...(apiKey.description && { description: apiKey.description }) };
    out.push([SCHEME_NAMES.apiKey, { apiKeySecurityScheme: scheme }, []]);
  }
  const mtls = objectOf(options.mtls);
  if (mtls) out.push([SCHEME_NAMES.mtls, { mtlsSecurityScheme: mtls.description ? { description: mtls.description } : {} }, []]);
  return out;
}

/** The card's `securitySchemes` and `securityRequirements` for `options` (see {@link CardSecurityOptions}). */
export function cardSecurity(options: CardSecurityOptions): Required<Pick<AgentCard, 'securitySchemes' | 'securityRequirements'>> {
  const list = entries(options);
  return {
    securitySchemes: Object.fromEntries(list.map(([name, scheme]) => [name, scheme])),
    securityRequirements: list.map(([name, , scopes]) => ({ schemes: { [name]: { list: [...scopes] } } })),
  };
}

/**
 * `card` with the security of `options` (replacing any it had), and, when
 * `extendedCard` is true, `capabilities.extendedAgentCard` set so that
 * authenticated callers know to ask for GetExtendedAgentCard.
 */
export function withCardSecurity(card: AgentCard, options: CardSecurityOptions & { readonly extendedCard?: boolean }): AgentCard {
  const capabilities = options.extendedCard ? { ...card.capabilities, extendedAgentCard: true } : card.capabilities;
  return { ...card, capabilities, ...cardSecurity(options) };
}

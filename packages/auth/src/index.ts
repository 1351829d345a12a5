/**
 * @taskwire/auth: production authentication for Taskwire servers. OIDC /
 * JWT bearer verification with the issuer's JWKS (`jwtAuth`, built on
 * jose), authorization by scopes per method and per skill
 * (`scopePolicy`), principals from client certificates (`mtlsAuth`), and
 * the agent card's security schemes (`cardSecurity`). Transports only hand
 * headers, metadata and certificates to these policies.
 */
export * from './jwt-auth.js';
export * from './token-errors.js';
export * from './scope-policy.js';
export * from './card-security.js';
export * from './mtls-auth.js';
export { discoveryUrl, fetchOpenIdConfiguration, jwksUriProblem } from './discovery.js';
export type { OpenIdConfiguration } from './discovery.js';

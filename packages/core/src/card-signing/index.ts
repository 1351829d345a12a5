export { canonicalJson } from './canonical-json.js';
export { canonicalAgentCard } from './card-fields.js';
export { AGENT_CARD_SIGNING_ALGS } from './jws-algorithms.js';
export type { AgentCardSigningAlg } from './jws-algorithms.js';
export { signAgentCard } from './sign-card.js';
export type { SignAgentCardOptions } from './sign-card.js';
export { verifyAgentCard } from './verify-card.js';
export type { AgentCardJwsHeader, AgentCardKeyLookup, AgentCardVerification, VerifyAgentCardOptions } from './verify-card.js';

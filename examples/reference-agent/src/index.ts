export { referenceAgent } from './agent.js';
export { referenceAgentCard } from './card.js';
export { PLATFORM_QUESTION, QUOTES, platformOf, shorten } from './quotes.js';

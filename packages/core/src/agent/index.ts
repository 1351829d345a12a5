export * from './events.js';
export * from './agent.js';

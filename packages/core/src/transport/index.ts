export * from './transport.js';
export * from './in-memory.js';

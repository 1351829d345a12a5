export * from './transitions.js';
export * from './reduce.js';

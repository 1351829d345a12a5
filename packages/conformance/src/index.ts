export * from './harness.js';
export * from './requirement.js';
export * from './suite.js';

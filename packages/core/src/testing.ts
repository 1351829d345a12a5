/**
 * Test helpers for Taskwire adapters (node + vitest only): the TaskStore
 * conformance suite every store adapter must pass, and its fixtures.
 */
export * from './store/store-conformance.js';

/**
 * Test helpers for Taskwire adapters (node + vitest only): the TaskStore
 * conformance suite every store adapter must pass, and its fixtures.
 */
export * from './store/store-conformance.js';
// Concurrent writers, raced on purpose: a store whose reads meet before any returns.
export * from './store/racing-reads.js';
// Push notifications: the PushConfigStore suite, and a real webhook receiver.
export * from './push/push-store-conformance.js';
export * from './push/push-secrets-conformance.js';
export * from './push/webhook-receiver.js';
export * from './push/push-test-card.js';

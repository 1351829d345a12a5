export * from './push-config-store.js';
export { MemoryPushConfigStore, createMemoryPushConfigStore } from './memory-push-store.js';
export type { MemoryPushConfigStoreOptions } from './memory-push-store.js';
export { deadLetterFilter, DEFAULT_MAX_DEAD_LETTERS, PushStoreClosedError } from './push-state.js';
export { pushConfigKeys, type PushConfigKey } from './push-config-keys.js';
export { hasPlainSecrets, PUSH_SECRETS_SEALED, sealPushSecretsOnce } from './push-sealing.js';
export type { PushSealer, PushSealingStep, SealingCandidate } from './push-sealing.js';

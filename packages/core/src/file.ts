/**
 * Node-only parts of @taskwire/core (`@taskwire/core/file`): the durable
 * file task store. The main entry stays browser-safe.
 */
export * from './store/file-store.js';

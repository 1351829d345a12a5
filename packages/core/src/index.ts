export * from './schema/index.js';
export * from './errors.js';
export * from './store/task-store.js';

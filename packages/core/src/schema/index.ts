export * from './common.js';
export * from './message.js';
export * from './task.js';
export * from './push.js';
export * from './requests.js';
export * from './agent-card.js';

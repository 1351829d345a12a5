export * from './events.js';
export * from './agent.js';
export { TextArtifact } from './text-artifact.js';

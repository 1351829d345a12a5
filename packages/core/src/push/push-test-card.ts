// A card for push notification tests (exported from @taskwire/core/testing).
import type { AgentCard } from '../schema/index.js';

/** A card for push tests: streaming and push notifications on, no skills. */
export function pushTestCard(name = 'push test', description = 'push test agent'): AgentCard {
  return {
    name,
    description,
    version: '1.0.0',
    supportedInterfaces: [{ url: 'memory://push', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };
}

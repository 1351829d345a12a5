import type { AgentCard, AgentInterface } from '@taskwire/core';

/** The reference agent's card, listing the interfaces the host serves. */
export function referenceAgentCard(interfaces: AgentInterface[]): AgentCard {
  return {
    name: 'Taskwire reference agent',
    description: 'Echoes, writes sunset quotes over several turns, streams slow work, and shows every task state.',
    supportedInterfaces: interfaces,
    version: '0.1.0',
    capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      { id: 'echo', name: 'Echo', description: 'Completes at once with your text.', tags: ['test'], examples: ['echo hello'] },
      {
        id: 'quote',
        name: 'Sunset quote',
        description: 'Asks for a platform, then writes a quote; "make it shorter" shortens a referenced one.',
        tags: ['multi-turn'],
        examples: ['provide a sunset quote', 'insta', 'make it shorter'],
      },
      {
        id: 'slow',
        name: 'Slow work',
        description: 'Streams n progress updates and artifact chunks.',
        tags: ['streaming'],
        examples: ['slow 10', 'slow 100 0'],
      },
    ],
  };
}

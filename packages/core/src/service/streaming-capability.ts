import { A2AError } from '../errors.js';
import type { AgentCard } from '../schema/index.js';

/** Throws UnsupportedOperation when the service's card does not declare streaming (a service without a card streams). */
export function requireStreaming(card: AgentCard | undefined): void {
  if (card && card.capabilities.streaming !== true) {
    throw new A2AError('UnsupportedOperation', 'This agent does not support streaming (capabilities.streaming is not true)');
  }
}

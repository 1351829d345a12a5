import { A2AError } from '../errors.js';
import type { ResultOf } from '../methods.js';
import type { CallContext } from '../calls.js';
import type { TaskServiceOptions } from './service-options.js';

/**
 * GetExtendedAgentCard's answer: UnsupportedOperation when the card does not
 * offer one, Unauthenticated for a caller without a principal (whatever the
 * transport or the auth policy's `required`), ExtendedAgentCardNotConfigured
 * when the service has none; else `extendedCard`, or what it returns for the
 * call when it is a function.
 */
export async function extendedCardFor(options: Pick<TaskServiceOptions, 'card' | 'extendedCard'>, context: CallContext): Promise<ResultOf<'GetExtendedAgentCard'>> {
  if (!options.card?.capabilities.extendedAgentCard) {
    throw new A2AError('UnsupportedOperation', 'This agent does not offer an extended agent card');
  }
  if (!context.principal) throw new A2AError('Unauthenticated', 'The extended agent card is only served to authenticated callers; send credentials');
  const extended = options.extendedCard;
  if (!extended) throw new A2AError('ExtendedAgentCardNotConfigured');
  return typeof extended === 'function' ? extended(context) : extended;
}

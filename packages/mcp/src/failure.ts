// Readable reasons for what went wrong between the bridge and the agent.
import { AgentCardError, isTransient, stripControls } from '@taskwire/client';
import { A2AError } from '@taskwire/core';

/** The innermost useful words of an error chain (fetch hides ECONNREFUSED in `cause`). */
function causeText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  const inner = cause instanceof Error ? (cause as Error & { code?: string }).code ?? cause.message : undefined;
  return inner && !error.message.includes(inner) ? `${error.message} (${inner})` : error.message;
}

/**
 * A sentence for the model and its user saying why a call to the agent
 * failed: a card it cannot use (no interface this client speaks, a bad
 * card), a transport failure (unreachable, refused, overloaded) with its
 * cause, refused credentials, or another A2A error with its kind. What
 * the agent wrote goes through the CLI's `stripControls` (no control, bidi
 * or zero-width characters).
 */
export function describeFailure(error: unknown, agent: string): string {
  return stripControls(describe(error, agent));
}

function describe(error: unknown, agent: string): string {
  if (error instanceof AgentCardError) return `The agent at ${agent} cannot be used: ${causeText(error)}`;
  if (isTransient(error) || !A2AError.is(error)) return `The agent at ${agent} could not be reached: ${causeText(error)}`;
  if (error.kind === 'Unauthenticated' || error.kind === 'PermissionDenied') {
    return `The agent at ${agent} refused the credentials (${error.kind}): ${error.message}. Give the bridge credentials (--token, --api-key or --client-id).`;
  }
  return `The agent at ${agent} answered with an error (${error.kind}): ${error.message}`;
}

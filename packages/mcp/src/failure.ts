// Readable reasons for what went wrong between the bridge and the agent.
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
 * failed: an A2A error with its kind, or a transport failure (unreachable,
 * refused, not A2A) with its cause.
 */
export function describeFailure(error: unknown, agent: string): string {
  if (A2AError.is(error)) {
    if (error.kind === 'Unauthenticated' || error.kind === 'PermissionDenied' || error.httpStatus === 401 || error.httpStatus === 403) {
      return `The agent at ${agent} refused the credentials (${error.kind}): ${error.message}. Give the bridge credentials (--token, --api-key or --client-id).`;
    }
    return `The agent at ${agent} answered with an error (${error.kind}): ${error.message}`;
  }
  return `The agent at ${agent} could not be reached: ${causeText(error)}`;
}

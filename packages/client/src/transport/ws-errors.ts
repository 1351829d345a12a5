// How the WebSocket transport reports a failed call or a refused connection as an A2AError.
import { A2A_ERROR_DOMAIN, A2AError, errorFromWire } from '@taskwire/core';
import { TRPCClientError } from '@trpc/client';

/** Close codes 4400-4599: the server refused the connection (4000 + the A2A error's HTTP status). */
export function refusal(event: { code?: number; reason?: string } | undefined): A2AError | undefined {
  const code = event?.code ?? 0;
  if (code < 4400 || code > 4599) return undefined;
  const [reason = '', ...rest] = (event?.reason ?? '').split(': ');
  const info = { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: A2A_ERROR_DOMAIN };
  return errorFromWire({ message: rest.join(': ') || `The server refused the connection (close code ${code})`, details: [info] });
}

function aborted(signal: AbortSignal): A2AError {
  const reason: unknown = signal.reason;
  const timedOut = reason instanceof Error && reason.name === 'TimeoutError';
  return new A2AError('Internal', timedOut ? 'The call timed out before the answer arrived' : 'The call was aborted by its signal before the answer arrived');
}

/** The A2AError a failed call reports: the server's A2A error, an abort, or a lost connection. */
export function a2aErrorOf(error: unknown, signal: AbortSignal | undefined): A2AError {
  if (A2AError.is(error)) return error;
  if (signal?.aborted) return aborted(signal);
  const a2a = error instanceof TRPCClientError ? (error.data as { a2a?: { code?: number; details?: unknown } } | undefined)?.a2a : undefined;
  if (a2a && typeof a2a.code === 'number') return errorFromWire({ code: a2a.code, message: (error as Error).message, details: a2a.details });
  const message = error instanceof Error ? error.message : String(error);
  return new A2AError(
    'Internal',
    `The WebSocket call failed (${message}); if the connection dropped, the call may or may not have taken effect: check with GetTask or ListTasks`,
  );
}

import type { AgentCard, AgentInterface } from '@taskwire/core';
import { A2AError } from '@taskwire/core';
import { TransientError } from '@taskwire/client';
import type { Credentials } from './transports.js';
import { clientFor, credentialsFor, hasCredentials } from './transports.js';

/** What probing one interface of the card found. */
export interface InterfaceProbe {
  /** Its index in the card's `supportedInterfaces`. */
  readonly index: number;
  readonly binding: string;
  readonly url: string;
  /** The version the card declares for it. */
  readonly declaredVersion: string;
  /**
   * `answered`: it answered in A2A (an unknown task's GetTask is refused
   * with an A2A error, as it should be); `refused`: it answered, but not the
   * way A2A says; `unauthenticated`: it answered, asking for credentials
   * (enter them and inspect again); `unreachable`: no answer;
   * `unsupported`: the inspector cannot speak that binding or version.
   */
  readonly status: 'answered' | 'refused' | 'unauthenticated' | 'unreachable' | 'unsupported';
  /** The protocol version the interface accepted, when it answered. */
  readonly acceptedVersion?: string;
  /** Milliseconds from the call to its answer. */
  readonly latencyMs?: number;
  /** What the agent answered (the A2A error kind and code) or why it did not. */
  readonly detail: string;
}

/** How long one probe waits for an answer. */
const PROBE_TIMEOUT_MS = 5_000;

/** One GetTask of a task that does not exist, over `iface` alone. */
async function probeVersion(card: AgentCard, iface: AgentInterface, credentials: Credentials | undefined, agentUrl: string | undefined, timeoutMs: number) {
  const only = { ...card, supportedInterfaces: [iface] };
  const client = clientFor(only, 0, credentials, agentUrl);
  const started = performance.now();
  try {
    await client.getTask({ id: `inspector-probe-${crypto.randomUUID()}` }, { timeoutMs });
    return { latencyMs: performance.now() - started, outcome: 'refused' as const, detail: 'GetTask of a task that does not exist succeeded' };
  } catch (error) {
    const latencyMs = performance.now() - started;
    // A transient error (connection refused, timed out, 502/503) means the interface did not answer in A2A.
    if (A2AError.is(error) && !(error instanceof TransientError)) {
      const expected = error.kind === 'TaskNotFound';
      return {
        latencyMs,
        outcome:
          error.kind === 'VersionNotSupported'
            ? ('version' as const)
            : expected
              ? ('answered' as const)
              : error.kind === 'Unauthenticated'
                ? ('unauthenticated' as const)
                : ('refused' as const),
        detail: `${error.kind} (${error.code})${expected ? '' : `: ${error.message}`}`,
      };
    }
    return { latencyMs, outcome: 'unreachable' as const, detail: (error as Error).message };
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** What a probe's detail adds when credentials were held back from an interface on another origin. */
const withheld = (url: string) => ` (credentials not sent: ${url} is not on the agent's origin; trust its origin to send them)`;

/**
 * Probes every interface of `card` (in parallel) with a GetTask of a task
 * that does not exist, through this process (gRPC and WebSocket included):
 * an agent that speaks A2A answers TaskNotFound. A JSON-RPC interface that
 * refuses v1.0 (VersionNotSupported) is tried again in v0.3. `credentials`
 * go to interfaces on the origin of `agentUrl` (the URL the user named) or
 * a trusted origin only; a probe of another one says they were held back.
 * Each probe waits `timeoutMs` at most (default 5000).
 */
export function probeInterfaces(card: AgentCard, credentials?: Credentials, agentUrl?: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<InterfaceProbe[]> {
  return Promise.all(
    card.supportedInterfaces.map(async (iface, index): Promise<InterfaceProbe> => {
      const base = { index, binding: iface.protocolBinding, url: iface.url, declaredVersion: iface.protocolVersion };
      const tried = [iface.protocolVersion, ...(iface.protocolBinding === 'JSONRPC' && iface.protocolVersion !== '0.3' ? ['0.3'] : [])];
      let last: InterfaceProbe | undefined;
      for (const version of tried) {
        let result;
        try {
          result = await probeVersion(card, { ...iface, protocolVersion: version }, credentials, agentUrl, timeoutMs);
        } catch (error) {
          return { ...base, status: 'unsupported', detail: (error as Error).message };
        }
        const status = result.outcome === 'version' ? 'refused' : result.outcome;
        const note = hasCredentials(credentials) && !credentialsFor(iface.url, agentUrl, credentials) ? withheld(iface.url) : '';
        last = { ...base, status, latencyMs: Math.round(result.latencyMs * 10) / 10, detail: `${result.detail}${note}`, ...(status !== 'unreachable' && result.outcome !== 'version' && { acceptedVersion: version }) };
        if (result.outcome !== 'version') break;
      }
      return last!;
    }),
  );
}

import type { A2AClient, StreamDrop } from '@taskwire/client';
import { createClient, fetchAgentCard, isTransient } from '@taskwire/client';
import type { AgentCard, Task } from '@taskwire/core';
import { A2AError } from '@taskwire/core';

/**
 * The card with its HTTP interfaces moved onto `origin`: the page talks to
 * the server that served it, whatever host name the server put in its card
 * (`127.0.0.1` when the page was opened as `localhost`, say), so every call
 * stays same-origin (no CORS needed).
 */
export function onOrigin(card: AgentCard, origin: string): AgentCard {
  const supportedInterfaces = card.supportedInterfaces.map((iface) => {
    if (!/^https?:\/\//i.test(iface.url)) return iface;
    const url = new URL(iface.url);
    return { ...iface, url: new URL(`${url.pathname}${url.search}`, origin).href };
  });
  return { ...card, supportedInterfaces };
}

/**
 * Connects to the agent that served the page: reads its card, and picks
 * JSON-RPC (or HTTP+JSON) on the page's origin, sending `x-api-key` with
 * every call when `apiKey` is given. A dropped stream is resumed (ten
 * tries); `onDrop` is told each time it drops.
 */
export async function connectToPageAgent(origin: string, apiKey: string, onDrop?: (drop: StreamDrop) => void): Promise<A2AClient> {
  const card = onOrigin(await fetchAgentCard(origin), origin);
  return createClient(origin, {
    card,
    preferred: ['JSONRPC', 'HTTP+JSON'],
    ...(apiKey && { headers: { 'x-api-key': apiKey } }),
    // A page can afford patience: ten tries over about ten seconds before a dropped stream counts as lost.
    resume: { attempts: 10, ...(onDrop && { onDrop }) },
  });
}

/**
 * Every task of a context, oldest first, with full history and artifacts
 * (ListTasks pages through them newest first, by status time).
 */
export async function loadContextTasks(client: A2AClient, contextId: string): Promise<Task[]> {
  const tasks: Task[] = [];
  let pageToken = '';
  do {
    const page = await client.listTasks({ contextId, pageSize: 100, includeArtifacts: true, ...(pageToken && { pageToken }) });
    tasks.push(...page.tasks);
    if (page.nextPageToken === pageToken) break;
    pageToken = page.nextPageToken;
  } while (pageToken);
  return tasks.reverse();
}

/** What the page says when the agent cannot be reached. */
export const UNREACHABLE = 'The agent cannot be reached: it may have stopped. Start it again with "npm start", then press Send (your message is kept).';

/** An error as a sentence for the page, saying what to do about it. */
export function explain(error: unknown): string {
  if (isTransient(error)) return UNREACHABLE;
  if (A2AError.is(error)) {
    if (error.kind === 'Unauthenticated') return 'The agent needs an API key (it was started with --api-key): enter it in the API key field above.';
    if (error.kind === 'TaskNotCancelable') return 'That task has already finished, so it cannot be canceled.';
    return `The agent answered with an error (${error.kind}): ${error.message}`;
  }
  if (error instanceof Error) {
    if (error.name === 'AbortError') return 'Stopped.';
    return `${error.message}. Is the reference agent still running? Start it with "npm start", then reload this page.`;
  }
  return String(error);
}

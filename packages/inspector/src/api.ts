import type { A2AClient } from '@taskwire/client';
import { fetchAgentCard } from '@taskwire/client';
import type { AgentCard, MethodSpec, StreamMethodName, UnaryMethodName } from '@taskwire/core';
import { A2AError, METHODS } from '@taskwire/core';
import { asStreamEvent, checkedResult } from './answer-shapes.js';
import { fetchCard } from './card-fetch.js';
import { cardCheck, inspectCard } from './card-report.js';
import type { CheckOptions } from './checks.js';
import type { ClientCredentials } from './client-credentials.js';
import { resolveCredentials } from './client-credentials.js';
import { runChecks } from './checks.js';
import { Timeline } from './timeline.js';
import type { WebhookReceiver } from './webhook-receiver.js';
import { startWebhookReceiver } from './webhook-receiver.js';
import type { Credentials } from './transports.js';
import { clientFor } from './transports.js';

/** What every API request of the page names: the agent, the credentials (kept for this request only) and the interface. */
export interface ApiTarget {
  readonly url: string;
  /** An API key, a bearer token, or an OAuth client-credentials grant (its token is fetched here). */
  readonly credentials?: Credentials & { clientCredentials?: ClientCredentials };
  /** Index in the card's `supportedInterfaces`; default: the one the client picks. */
  readonly interface?: number;
}

/** An error as the page shows it: the A2A kind and code when the agent gave one. */
export interface ApiError {
  readonly message: string;
  readonly kind?: string;
  readonly code?: number;
}

/** Turns anything thrown into an {@link ApiError}. */
export function apiError(error: unknown): ApiError {
  if (A2AError.is(error)) return { message: error.message, kind: error.kind, code: error.code };
  return { message: error instanceof Error ? error.message : String(error) };
}

/** A request the page got wrong: answered 400. */
export class BadRequest extends Error {
  override readonly name = 'BadRequest';
}

/** The agent and credentials a request names, a client-credentials grant exchanged for its token. */
async function target(body: unknown): Promise<ApiTarget> {
  const given = body as Partial<ApiTarget> | undefined;
  if (typeof given?.url !== 'string' || !/^https?:\/\//.test(given.url)) throw new BadRequest('name the agent: "url" must be an http(s) URL');
  const trusted = given.credentials?.trustedOrigins;
  if (trusted !== undefined && (!Array.isArray(trusted) || trusted.some((origin) => typeof origin !== 'string'))) throw new BadRequest('"credentials.trustedOrigins" must be a list of origins');
  const credentials = await resolveCredentials(given.credentials);
  return { ...(given as ApiTarget), ...(credentials && { credentials }) };
}

/**
 * What a call of the page asks the agent for besides its params: the
 * extension URIs in `extensions` (sent as `A2A-Extensions`) and, with
 * `version: "1.1"`, A2A 1.1 (`A2A-Version: 1.1`: tasks and events then
 * carry their `generation`, which the timeline shows). Anything else is a
 * BadRequest.
 */
export function asking(body: unknown): { extensions?: readonly string[]; headers?: Record<string, string> } {
  const { extensions, version } = body as { extensions?: unknown; version?: unknown };
  if (extensions !== undefined && (!Array.isArray(extensions) || extensions.some((uri) => typeof uri !== 'string' || !/^[\x21-\x7e]+$/.test(uri) || uri.includes(',')))) {
    throw new BadRequest('"extensions" must be a list of extension URIs');
  }
  if (version !== undefined && version !== '1.0' && version !== '1.1') throw new BadRequest('"version" must be "1.0" or "1.1"');
  return { ...(extensions?.length && { extensions: extensions as string[] }), ...(version === '1.1' && { headers: { 'a2a-version': '1.1' } }) };
}

/**
 * The API the page calls, on the Node side: every call to the agent goes
 * through `@taskwire/client` in this process (so gRPC and WebSocket work,
 * and CORS never matters). Cards are kept per agent URL; credentials never.
 */
export class InspectorApi {
  private readonly cards = new Map<string, AgentCard>();
  private receiver: Promise<WebhookReceiver> | undefined;

  /** `POST /api/webhook`: the local webhook receiver (started on first use): its URL and what it received. */
  async webhook() {
    this.receiver ??= startWebhookReceiver().catch((error: unknown) => {
      this.receiver = undefined; // the next call tries again
      throw error;
    });
    const receiver = await this.receiver;
    return { url: receiver.url, deliveries: receiver.deliveries() };
  }

  /** Stops the webhook receiver, if it was started. */
  async close(): Promise<void> {
    const receiver = await this.receiver?.catch(() => undefined);
    await receiver?.close();
  }

  /** `POST /api/inspect`: the card report (see `inspectCard`). */
  async inspect(body: unknown) {
    const { url, credentials } = await target(body);
    const report = await inspectCard(url, credentials);
    if (report.card) this.cards.set(url, report.card);
    return report;
  }

  /**
   * `POST /api/call`: one unary operation (`method`, `params`), answered
   * `{ result }` or `{ error }` (also when the result is not of the shape
   * the page reads, see `checkedResult`); with `extensions` (see
   * {@link asking}) the result comes with the ones the agent activated.
   */
  async call(body: unknown) {
    const { method, params } = body as { method?: string; params?: unknown };
    if (!method || (METHODS as Record<string, MethodSpec>)[method]?.kind !== 'unary') throw new BadRequest(`"method" must be a unary A2A operation (got ${method})`);
    const ask = asking(body);
    const client = await this.client(await target(body));
    let extensions: readonly string[] | undefined;
    try {
      const options = { timeoutMs: 30_000, ...ask, ...(ask.extensions && { onExtensions: (activated: readonly string[]) => (extensions = activated) }) };
      const result = checkedResult(method, await client.unary(method as UnaryMethodName, params as never, options));
      return { result, ...(extensions !== undefined && { extensions }) };
    } catch (error) {
      return { error: apiError(error) };
    } finally {
      await client.close().catch(() => undefined);
    }
  }

  /**
   * `POST /api/stream`: a stream operation (`SendStreamingMessage` or
   * `SubscribeToTask`); each event goes to `send` as a timeline entry as it
   * arrives, then the stream's end (`end`) or failure (`error`). `signal`
   * (the page closing the request) closes the stream. With `extensions`
   * and `version` (see {@link asking}), the extensions the agent activated
   * go to `send` as `extensions` (`{ activated }`) when the stream opens.
   */
  async stream(body: unknown, send: (event: 'entry' | 'extensions' | 'end' | 'error', data: unknown) => void, signal: AbortSignal): Promise<void> {
    const { method, params } = body as { method?: string; params?: unknown };
    if (!method || (METHODS as Record<string, MethodSpec>)[method]?.kind !== 'stream') throw new BadRequest(`"method" must be a stream A2A operation (got ${method})`);
    const ask = asking(body);
    const client = await this.client(await target(body));
    const timeline = new Timeline();
    try {
      const options = { signal, ...ask, ...(ask.extensions && { onExtensions: (activated: readonly string[]) => send('extensions', { activated }) }) };
      for await (const event of client.stream(method as StreamMethodName, params as never, options)) send('entry', timeline.add(asStreamEvent(event, method)));
      send('end', {});
    } catch (error) {
      if (!signal.aborted) send('error', apiError(error));
    } finally {
      await client.close().catch(() => undefined);
    }
  }

  /**
   * `POST /api/checks`: the same battery as `--check`: the card check (see
   * `cardCheck`, on a fresh card report) then, when the card is usable, the
   * checks of `runChecks` with `quickText` / `slowText` when given.
   */
  async checks(body: unknown) {
    const { url, credentials, interface: index } = await target(body);
    const report = await inspectCard(url, credentials);
    const card = cardCheck(report);
    if (!report.card) return [card];
    this.cards.set(url, report.card);
    const client = clientFor(report.card, typeof index === 'number' ? index : undefined, credentials, url);
    try {
      return [card, ...(await runChecks(client, body as CheckOptions))];
    } finally {
      await client.close().catch(() => undefined);
    }
  }

  private async client({ url, credentials, interface: index }: ApiTarget): Promise<A2AClient> {
    let card = this.cards.get(url);
    if (!card) {
      // The client reads and checks the card; fetchCard fetches it (no redirect to another origin, credentials on the agent's origin only).
      const viaFetchCard = async () => {
        const fetched = await fetchCard(url, credentials);
        if (!fetched.response || fetched.error !== undefined) throw new Error(fetched.error ?? 'no answer');
        return fetched.response;
      };
      card = await fetchAgentCard(url, { fetch: viaFetchCard });
      this.cards.set(url, card);
    }
    return clientFor(card, typeof index === 'number' ? index : undefined, credentials, url);
  }
}

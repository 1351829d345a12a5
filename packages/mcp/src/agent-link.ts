// The bridge's one connection to the A2A agent: made lazily, retried after a
// failure, shared by every MCP session.
import type { A2AClient, CreateClientOptions } from '@taskwire/client';
import { createClient } from '@taskwire/client';
import type { AgentCard } from '@taskwire/core';

/** How the bridge reaches its agent: a URL (its card is fetched) or a client you made. */
export type AgentTarget = string | URL | A2AClient;

/**
 * A lazily made {@link A2AClient} for one agent. `client()` reads the card
 * and picks a transport the first time (and again after a failure, so an
 * agent that comes up later is found); `refresh()` re-reads the card.
 */
export class AgentLink {
  private current: A2AClient | undefined;
  private pending: Promise<A2AClient> | undefined;
  private readonly listeners = new Set<(card: AgentCard | undefined) => void>();

  constructor(
    readonly target: AgentTarget,
    private readonly options: CreateClientOptions = {},
  ) {
    if (typeof target === 'object' && !(target instanceof URL)) this.current = target;
  }

  /** The agent as named in messages: its URL (or its card's first interface). */
  get label(): string {
    if (typeof this.target === 'string' || this.target instanceof URL) return String(this.target);
    return this.target.interface?.url ?? this.target.card?.name ?? 'the agent';
  }

  /** The card of the client made so far, if any. */
  get card(): AgentCard | undefined {
    return this.current?.card;
  }

  /** Calls `listener` with the card each time a client is made from a (new) card. Returns the unsubscribe function. */
  onCard(listener: (card: AgentCard | undefined) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The client; makes it on first use (or after a failure). Rejects with why the agent could not be reached. */
  client(): Promise<A2AClient> {
    if (this.current) return Promise.resolve(this.current);
    return this.connect();
  }

  /** Re-reads the card and makes a new client (a client given as target is kept as it is). */
  async refresh(): Promise<A2AClient> {
    if (typeof this.target === 'object' && !(this.target instanceof URL)) return this.target;
    return this.connect();
  }

  private connect(): Promise<A2AClient> {
    this.pending ??= createClient(this.target as string | URL, this.options)
      .then((client) => {
        const before = JSON.stringify(this.current?.card);
        const old = this.current;
        this.current = client;
        if (old && old !== client) old.close().catch(() => {});
        if (JSON.stringify(client.card) !== before) for (const listener of this.listeners) listener(client.card);
        return client;
      })
      .finally(() => (this.pending = undefined));
    return this.pending;
  }

  /** Closes the client's connections. */
  async close(): Promise<void> {
    await this.current?.close();
  }
}

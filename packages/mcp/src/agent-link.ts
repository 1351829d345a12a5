// The bridge's one connection to the A2A agent: made lazily, retried after a
// failure, shared by every MCP session.
import type { A2AClient, CreateClientOptions } from '@taskwire/client';
import { createClient } from '@taskwire/client';
import type { AgentCard } from '@taskwire/core';

/** How long a client replaced by a new card stays open for the calls still on it. */
const OLD_CLIENT_GRACE_MS = 600_000;

/** How the bridge reaches its agent: a URL (its card is fetched) or a client you made. */
export type AgentTarget = string | URL | A2AClient;

/**
 * A lazily made {@link A2AClient} for one agent. `client()` reads the card
 * and picks a transport the first time (and again after a failure, so an
 * agent that comes up later is found); `refresh()` re-reads the card now,
 * `refreshEvery(ms)` periodically. Listeners hear of each card that differs
 * from the one before.
 */
export class AgentLink {
  private current: A2AClient | undefined;
  private pending: Promise<A2AClient> | undefined;
  private readonly listeners = new Set<(card: AgentCard | undefined) => void>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly retired = new Set<A2AClient>();

  constructor(
    readonly target: AgentTarget,
    private readonly options: CreateClientOptions = {},
  ) {
    if (typeof target === 'object' && !(target instanceof URL)) this.current = target;
  }

  /** The agent as named in messages: the URL it was configured with (or the interface of the client given); never a name from its card. */
  get label(): string {
    if (typeof this.target === 'string' || this.target instanceof URL) return String(this.target);
    return this.target.interface?.url ?? 'the agent';
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
        const old = this.current;
        if (old && JSON.stringify(old.card) === JSON.stringify(client.card)) {
          client.close().catch(() => {}); // the same card: calls under way keep their client
          return old;
        }
        this.current = client;
        // Calls under way on the old client finish on it; it is closed after a grace period.
        if (old) {
          this.retired.add(old);
          setTimeout(() => this.retired.delete(old) && void old.close().catch(() => {}), OLD_CLIENT_GRACE_MS).unref();
        }
        for (const listener of this.listeners) listener(client.card);
        return client;
      })
      .finally(() => (this.pending = undefined));
    return this.pending;
  }

  /**
   * Re-reads the card every `ms` from now on (failures are ignored: the
   * next read tries again), so the tools follow a card that changes while
   * the bridge runs. The timer does not keep the process alive.
   */
  refreshEvery(ms: number): void {
    clearInterval(this.timer);
    this.timer = setInterval(() => void this.refresh().catch(() => {}), ms);
    this.timer.unref();
  }

  /** Stops re-reading the card and closes the client's connections. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    const clients = [...this.retired, ...(this.current ? [this.current] : [])];
    this.retired.clear();
    await Promise.all(clients.map((client) => client.close()));
  }
}

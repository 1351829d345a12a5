import net from 'node:net';

/** One client connection and its upstream, as the proxy carries them. */
interface Pair {
  readonly client: net.Socket;
  readonly upstream: net.Socket;
  /** Set once the pair went silent: nothing is forwarded any more, in either direction, and nothing is closed. */
  silent: boolean;
  /** Set once the pair's answers are being lost: what the client sends still reaches the database, nothing comes back. */
  deaf: boolean;
}

/**
 * A TCP proxy between a replica and PostgreSQL that breaks connections the
 * way networks do, for the cluster's fault tests:
 * - {@link reset}: every connection is reset (RST), as a pooler, a load
 *   balancer or a database restart does;
 * - {@link silence}: every connection open now goes half-open for good (the
 *   sockets stay open, nothing more is forwarded either way, as after a
 *   failover or a NAT reset), and so does every connection made in the next
 *   `ms`; later connections work again;
 * - {@link refuse}: connections made in the next `ms` are reset at once (a
 *   database that is down);
 * - {@link switchTo}: later connections go to another server (a DNS name or
 *   a virtual IP moved to a promoted standby);
 * - {@link deafen}: every connection open now, and every one made in the
 *   next `ms`, loses its answers (what the client sends still reaches the
 *   database, nothing comes back, nothing is closed);
 * - {@link loseAnswerTo}: the answer to the next statement whose bytes hold
 *   a marker is lost (the statement reaches the database and commits; its
 *   connection then dies before the answer comes back);
 * - {@link failStatement}: the next statement whose bytes hold a marker
 *   never reaches the database, its connection reset instead (a transient
 *   error on that one statement).
 * Only ever listens on 127.0.0.1.
 */
export class FaultProxy {
  private readonly pairs = new Set<Pair>();
  private silentUntil = 0;
  private deafUntil = 0;
  private refusedUntil = 0;
  private losing: { readonly marker: Buffer; readonly afterMs: number; readonly forward: boolean; readonly resolve: () => void } | undefined;
  /** Connections accepted since the start (forwarded, silenced or refused). */
  accepted = 0;

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
    private target: { host: string; port: number },
  ) {}

  /** Starts a proxy on a free port of 127.0.0.1 to `target` (host and port of PostgreSQL). */
  static async start(target: { host: string; port: number }): Promise<FaultProxy> {
    let proxy: FaultProxy | undefined;
    const server = net.createServer((client) => proxy!.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    proxy = new FaultProxy(server, (server.address() as net.AddressInfo).port, target);
    return proxy;
  }

  /** `url` (a `postgres://` URL) with its host and port replaced by this proxy's. */
  url(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = '127.0.0.1';
    parsed.port = String(this.port);
    return parsed.toString();
  }

  /** How many connections are open through the proxy now. */
  get open(): number {
    return this.pairs.size;
  }

  /** Resets every open connection (both sides get a RST). Resolves how many. */
  reset(): number {
    const pairs = [...this.pairs];
    for (const pair of pairs) this.drop(pair);
    return pairs.length;
  }

  /** Every open connection, and every one made in the next `ms`, goes half-open for good. Resolves how many were open. */
  silence(ms: number): number {
    this.silentUntil = Date.now() + ms;
    for (const pair of this.pairs) this.mute(pair);
    return this.pairs.size;
  }

  /** Every open connection, and every one made in the next `ms`, loses its answers for good (its statements still reach the database). Resolves how many were open. */
  deafen(ms: number): number {
    this.deafUntil = Date.now() + ms;
    for (const pair of this.pairs) pair.deaf = true;
    return this.pairs.size;
  }

  /** Connections made from now on go to `target` (those open now stay where they are). */
  switchTo(target: { host: string; port: number }): void {
    this.target = target;
  }

  /** Connections made in the next `ms` are reset at once. */
  refuse(ms: number): void {
    this.refusedUntil = Date.now() + ms;
  }

  /**
   * The next statement sent whose bytes contain `marker` reaches the
   * database, but its answer never comes back: the connection forwards
   * nothing more to the client and is reset `afterMs` later (time for the
   * statement to commit). Resolves once that connection was reset.
   */
  loseAnswerTo(marker: string, afterMs = 500): Promise<void> {
    return new Promise((resolve) => (this.losing = { marker: Buffer.from(marker), afterMs, forward: true, resolve }));
  }

  /** The next statement sent whose bytes contain `marker` is not forwarded: its connection is reset at once. Resolves once it was. */
  failStatement(marker: string): Promise<void> {
    return new Promise((resolve) => (this.losing = { marker: Buffer.from(marker), afterMs: 0, forward: false, resolve }));
  }

  /** Resets every connection and stops listening. */
  async close(): Promise<void> {
    this.reset();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: net.Socket): void {
    const target = this.target;
    this.accepted++;
    client.on('error', () => undefined);
    if (Date.now() < this.refusedUntil) {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    upstream.on('error', () => undefined);
    const pair: Pair = { client, upstream, silent: false, deaf: false };
    this.pairs.add(pair);
    client.on('data', (chunk: Buffer) => {
      if (pair.silent) return;
      const losing = this.losing;
      if (losing !== undefined && chunk.includes(losing.marker)) {
        this.losing = undefined;
        pair.deaf = true;
        setTimeout(() => {
          this.drop(pair);
          losing.resolve();
        }, losing.afterMs);
        if (!losing.forward) {
          pair.silent = true;
          return;
        }
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => pair.silent || pair.deaf || client.write(chunk));
    const end = () => this.drop(pair);
    client.on('close', end);
    // A silent pair never passes on its upstream's end: the client must find out by itself.
    upstream.on('close', () => pair.silent || end());
    if (Date.now() < this.silentUntil) this.mute(pair);
    if (Date.now() < this.deafUntil) pair.deaf = true;
  }

  private mute(pair: Pair): void {
    pair.silent = true;
  }

  private drop(pair: Pair): void {
    if (!this.pairs.delete(pair)) return;
    if (!pair.client.destroyed) pair.client.resetAndDestroy();
    if (!pair.upstream.destroyed) pair.upstream.resetAndDestroy();
  }
}

import type { AgentProcess, AgentUrls } from '@taskwire/reliability/support/agent-process';
import { spawnAgent } from '@taskwire/reliability/support/agent-process';
import type { Binding, ClosableTransport } from '@taskwire/reliability/support/transports';
import { connectTransport } from '@taskwire/reliability/support/transports';
import { roundRobin } from './round-robin.js';

/** How {@link Cluster.start} starts the replicas. */
export interface ClusterOptions {
  /** How many reference-agent processes. */
  readonly size: number;
  /** The `postgres://` URL every replica is given as `--store`. */
  readonly databaseUrl: string;
  /** Per replica, a URL of its own instead (say, through a fault proxy of its own). */
  readonly databaseUrls?: readonly string[];
  /** The schema of the tables (`--schema`; migrated by the first replica to start). */
  readonly schema: string;
  /** More options for every replica (e.g. `--lease-ttl-ms 2000`). */
  readonly args?: readonly string[];
}

/** One reference-agent process of a cluster. Its ports stay the same across restarts. */
export interface Replica {
  readonly index: number;
  readonly port: number;
  readonly grpcPort: number;
  process: AgentProcess;
  urls: AgentUrls;
  /** False between a kill (or stop) and the restart. */
  up: boolean;
}

const portOf = (url: string): number => Number(/:(\d+)(?:\/|$)/.exec(url)?.[1]);

/**
 * Several reference agents (`examples/reference-agent/src/main.ts`, as
 * `npm start` runs it) as real child processes on free ports of 127.0.0.1,
 * all on one PostgreSQL database: a cluster. Replicas can be killed with
 * SIGKILL, stopped with SIGTERM and restarted on their old ports; the
 * client transports to a replica are made anew when it restarts.
 */
export class Cluster {
  /** Per replica, the transports made to its current process. */
  private readonly made = new Map<number, Map<Binding, ClosableTransport>>();

  private constructor(
    readonly replicas: Replica[],
    private readonly options: ClusterOptions,
  ) {}

  /** The schema the replicas share. */
  get schema(): string {
    return this.options.schema;
  }

  /** Starts `size` replicas at once (each migrates the schema if needed: migrations take turns on a lock). */
  static async start(options: ClusterOptions): Promise<Cluster> {
    const processes = Array.from({ length: options.size }, (_, index) => Cluster.spawn(options, index));
    try {
      const urls = await Promise.all(processes.map((p) => p.ready));
      const replicas = urls.map((u, index) => ({ index, port: portOf(u.jsonRpc), grpcPort: portOf(u.grpc), process: processes[index]!, urls: u, up: true }));
      return new Cluster(replicas, options);
    } catch (error) {
      await Promise.all(processes.map((p) => p.kill()));
      throw error;
    }
  }

  private static spawn(options: ClusterOptions, index: number, ports?: { port: number; grpcPort: number }): AgentProcess {
    return spawnAgent({ store: { url: options.databaseUrls?.[index] ?? options.databaseUrl }, ...ports, args: ['--migrate', '--schema', options.schema, ...(options.args ?? [])] });
  }

  /** The client transport of `binding` to replica `index` (made once per start of that replica). */
  transport(binding: Binding, index: number): ClosableTransport {
    let made = this.made.get(index);
    if (made === undefined) this.made.set(index, (made = new Map()));
    let transport = made.get(binding);
    if (transport === undefined) made.set(binding, (transport = connectTransport(binding, this.replicas[index]!.urls)));
    return transport;
  }

  /** A transport of `binding` that sends each call to the next replica (round-robin), the ones down included. */
  roundRobin(binding: Binding): ClosableTransport {
    const all = roundRobin(() => this.replicas.map((r) => this.transport(binding, r.index)));
    return { unary: all.unary, stream: all.stream, close: async () => {} };
  }

  /** Kills replica `index` with SIGKILL and waits until the process is gone. */
  async kill(index: number): Promise<void> {
    const replica = this.replicas[index]!;
    replica.up = false;
    await replica.process.kill();
  }

  /** Stops replica `index` with SIGTERM (a graceful drain) and resolves its exit code. */
  async stop(index: number): Promise<number | null> {
    const replica = this.replicas[index]!;
    replica.up = false;
    return replica.process.stop();
  }

  /** Starts replica `index` again, on its old ports, and waits until it serves. */
  async restart(index: number): Promise<void> {
    const replica = this.replicas[index]!;
    await replica.process.exited;
    await this.forget(index);
    replica.process = Cluster.spawn(this.options, index, { port: replica.port, grpcPort: replica.grpcPort });
    replica.urls = await replica.process.ready;
    // Transports made while it was starting may be backing off from a refused connection: make new ones.
    await this.forget(index);
    replica.up = true;
  }

  /** Everything replica `index` wrote to stderr (its warnings and errors) since its last start. */
  stderr(index: number): string {
    return this.replicas[index]!.process.stderr();
  }

  /** Closes every client transport and kills every replica. */
  async close(): Promise<void> {
    await Promise.all(this.replicas.map((r) => this.forget(r.index)));
    await Promise.all(this.replicas.map((r) => r.process.kill()));
  }

  private async forget(index: number): Promise<void> {
    const stale = [...(this.made.get(index)?.values() ?? [])];
    this.made.delete(index);
    await Promise.all(stale.map((t) => t.close().catch(() => undefined)));
  }
}

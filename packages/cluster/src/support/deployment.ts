import { createServer } from 'node:net';
import type { AgentProcess, AgentUrls } from '@taskwire/reliability/support/agent-process';
import { spawnAgent } from '@taskwire/reliability/support/agent-process';
import type { ClosableTransport } from '@taskwire/reliability/support/transports';
import { connectTransport } from '@taskwire/reliability/support/transports';

/** One pod of a {@link Deployment}: a reference agent on its own loopback address. */
export interface Pod {
  readonly index: number;
  /** `127.0.0.<index + 1>`: every pod listens on the same ports, each on its own address. */
  readonly host: string;
  readonly process: AgentProcess;
  readonly urls: AgentUrls;
  /** Its JSON-RPC transport. */
  readonly transport: ClosableTransport;
  /** False once it is being stopped: no new work goes to it. */
  up: boolean;
}

/** A free TCP port on every address of this machine. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '0.0.0.0', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Reference agents started as a Kubernetes Deployment's pods are: the same
 * command line, the same fixed ports (each pod on its own loopback address
 * here, as each pod has its own network namespace there), no
 * `--replica-name`, so each gets the reference agent's default name, which
 * it derives from the host name and port. Scaled up and down like one.
 */
export class Deployment {
  readonly pods: Pod[] = [];

  private constructor(
    private readonly databaseUrl: string,
    private readonly args: readonly string[],
    private readonly port: number,
    private readonly grpcPort: number,
  ) {}

  /** A deployment of no pods yet; `args` go to every pod (its schema, lease, ...). */
  static async create(databaseUrl: string, args: readonly string[]): Promise<Deployment> {
    return new Deployment(databaseUrl, args, await freePort(), await freePort());
  }

  /** The pods that are up (taking work). */
  get up(): Pod[] {
    return this.pods.filter((p) => p.up);
  }

  /** Starts pods (at once) or stops the newest ones with SIGTERM (one after the other, as a rollout does) until `size` are up. */
  async scaleTo(size: number): Promise<void> {
    const starting: Promise<Pod>[] = [];
    for (let index = this.pods.length; index < size; index++) starting.push(this.start(index));
    this.pods.push(...(await Promise.all(starting)));
    while (this.pods.length > size) {
      const pod = this.pods.at(-1)!;
      pod.up = false;
      await pod.process.stop();
      await pod.transport.close().catch(() => undefined);
      this.pods.pop();
    }
  }

  /** Kills every pod. */
  async close(): Promise<void> {
    await Promise.all(this.pods.splice(0).map(async (pod) => {
      pod.up = false;
      await pod.transport.close().catch(() => undefined);
      await pod.process.kill();
    }));
  }

  private async start(index: number): Promise<Pod> {
    const host = `127.0.0.${index + 1}`;
    const process = spawnAgent({ store: { url: this.databaseUrl }, port: this.port, grpcPort: this.grpcPort, args: ['--host', host, ...this.args] });
    const urls = await process.ready;
    return { index, host, process, urls, transport: connectTransport('JSON-RPC', urls), up: true };
  }
}

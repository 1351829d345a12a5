/**
 * One replica of the cluster benchmark, in its own process: the reference
 * agent plus two measuring skills on @taskwire/postgres with a coordinator,
 * JSON-RPC at /a2a/jsonrpc.
 *
 *   cluster-servers.ts replica   one replica of a cluster (a coordinator beside the store)
 *   cluster-servers.ts solo      the same server alone on its store (no coordinator), for comparison
 *
 * - `tick <n> <ms>`: n working updates `<ms>` apart, each carrying the
 *   wall-clock time it was emitted (`metadata.at`), then completes;
 * - `hold`: working, then waits for its signal; the time the signal
 *   aborted is kept, and `GET /bench/aborts` answers them (task id to ms
 *   since the epoch).
 *
 * $BENCH_DATABASE_URL and $BENCH_SCHEMA name the tables (migrated by the
 * driver). Prints `READY <port>`; exits on SIGTERM / SIGINT.
 */
import { pathToFileURL } from 'node:url';
import type { Agent } from '@taskwire/core';
import { TaskService } from '@taskwire/core';
import { createPostgresCoordinator, createPostgresTaskStore } from '@taskwire/postgres';
import { referenceAgent, referenceAgentCard } from '@taskwire/reference-agent';
import { serveReplica } from './replica-server.js';

/** Where a replica answers when `hold` runs saw their signal abort. */
export const ABORTS_PATH = '/bench/aborts';

const aborts: Record<string, number> = {};

const benchAgent: Agent = async (ctx) => {
  const [word, n, ms] = ctx.text.split(' ');
  if (word === 'hold') {
    await ctx.working('holding');
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
    aborts[ctx.task.id] = Date.now();
    return;
  }
  if (word !== 'tick') return referenceAgent(ctx) as Promise<void>;
  for (let i = 0; i < Number(n); i++) {
    await new Promise((resolve) => setTimeout(resolve, Number(ms)));
    await ctx.working(undefined, { metadata: { at: Date.now() } });
  }
  await ctx.complete('ticked');
};

async function main(): Promise<void> {
  const store = await createPostgresTaskStore({ connectionString: process.env.BENCH_DATABASE_URL!, schema: process.env.BENCH_SCHEMA! });
  const coordinator = process.argv[2] === 'solo' ? undefined : await createPostgresCoordinator({ store });
  const card = referenceAgentCard([{ url: 'http://127.0.0.1/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
  const service = new TaskService({ store, agent: benchAgent, card, ...(coordinator && { coordinator }) });
  await service.recover();
  await serveReplica(service, [async () => coordinator?.close(), () => store.close()], (request, response) => {
    if (request.url !== ABORTS_PATH) return void (response.writeHead(404), response.end());
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(aborts));
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) void main();

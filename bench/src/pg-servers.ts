/**
 * One server of the PostgreSQL benchmark, in its own process (JSON-RPC at
 * /a2a/jsonrpc, like the HTTP benchmark's):
 *
 *   pg-servers.ts ours-pg      Taskwire: reference agent, @taskwire/postgres store, serveA2A
 *   pg-servers.ts peer-pg      @a2a-js/sdk 1.3.0: DatabaseTaskStore (Kysely + pg), express, an equivalent echo agent
 *   pg-servers.ts ours-memory  Taskwire: reference agent, memory store (no database)
 *   pg-servers.ts ours-pg-unbatched / ours-pg-rewrite   ours-pg without batched commits / also rewriting the task JSON at every commit
 *   pg-servers.ts ours-pg-cluster   ours-pg as a cluster replica (a coordinator beside the store, as the reference agent runs on PostgreSQL)
 *   pg-servers.ts ours-pg-cluster-unbatched   the same without batched commits (each leased commit its own statement, as before they were batched)
 *
 * $BENCH_DATABASE_URL names the database (migrated by the driver). Both
 * database servers use a pool of 10 connections whose clients count their
 * queries (one query = one round trip); `GET /bench/round-trips` answers the
 * count so far. Prints `READY <port>`; exits on SIGTERM / SIGINT.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { DatabaseTaskStore } from '@a2a-js/sdk/server/database';
import { jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { createMemoryTaskStore, TaskService, type TaskCoordinator, type TaskStore } from '@taskwire/core';
import { createPostgresCoordinator, createPostgresTaskStore, UnnamedStatementClient, type PostgresTaskStoreOptions } from '@taskwire/postgres';
import { referenceAgent, referenceAgentCard } from '@taskwire/reference-agent';
import { serveA2A } from '@taskwire/server-http';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { peerRequestHandler } from './http-peer-agent.js';

type ExpressApp = RequestListener & { use(path: string, handler: unknown): void; get(path: string, handler: RequestListener): void };
const express = createRequire(import.meta.url)('express') as () => ExpressApp;

/** Where every server answers JSON-RPC. */
export const JSON_RPC_PATH = '/a2a/jsonrpc';
/** Where a server answers how many database round trips it made so far. */
export const ROUND_TRIPS_PATH = '/bench/round-trips';

let roundTrips = 0;

/** With $BENCH_DIRECT_DATABASE_URL, $BENCH_DATABASE_URL goes through a transaction-mode pooler and this reaches PostgreSQL itself. */
const DIRECT_URL = process.env.BENCH_DIRECT_DATABASE_URL;

/**
 * A pool of 10 whose clients count every query they send (one query, one
 * round trip); behind a pooler, of unnamed statements (Taskwire's option
 * for poolers; the peer names none).
 */
function countingPool(): pg.Pool {
  const Base: typeof pg.Client = DIRECT_URL ? UnnamedStatementClient : pg.Client;
  class CountingClient extends Base {
    override query(...args: unknown[]): never {
      roundTrips++;
      return (super.query as (...a: unknown[]) => never)(...args);
    }
  }
  return new pg.Pool({ connectionString: process.env.BENCH_DATABASE_URL, max: 10, Client: CountingClient });
}

function answerRoundTrips(_request: IncomingMessage, response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'text/plain' });
  response.end(String(roundTrips));
}

type Stop = () => Promise<void>;

/** Taskwire's store options for a pool behind the pooler: sessions on the direct URL. */
const direct = DIRECT_URL ? { directConnectionString: DIRECT_URL } : {};

async function ours(store: TaskStore, coordinator?: TaskCoordinator & { close(): Promise<void> }): Promise<[number, Stop]> {
  const card = referenceAgentCard([{ url: `http://127.0.0.1${JSON_RPC_PATH}`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
  const service = new TaskService({ store, agent: referenceAgent, card, ...(coordinator && { coordinator }) });
  const server = await serveA2A({
    service,
    port: 0,
    host: '127.0.0.1',
    fallback: (request, response) => (request.url === ROUND_TRIPS_PATH ? answerRoundTrips(request, response) : (response.writeHead(404), response.end())),
  });
  return [server.port, async () => (await server.close(), await service.close(), await coordinator?.close(), await store.close())];
}

/** ours-pg as one replica of a cluster: the store and its coordinator (leases, LISTEN/NOTIFY), as the reference agent runs on PostgreSQL. */
async function replica(options: Partial<PostgresTaskStoreOptions> = {}): Promise<[number, Stop]> {
  const store = await createPostgresTaskStore({ pool: countingPool(), ...direct, ...options });
  return ours(store, await createPostgresCoordinator({ store }));
}

async function peer(): Promise<[number, Stop]> {
  const pool = countingPool();
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
  const app = express();
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const requestHandler = peerRequestHandler(`http://127.0.0.1:${port}${JSON_RPC_PATH}`, new DatabaseTaskStore(db));
  app.get(ROUND_TRIPS_PATH, answerRoundTrips);
  app.use(JSON_RPC_PATH, jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  return [port, async () => (await new Promise<void>((resolve) => server.close(() => resolve())), await db.destroy())];
}

const kinds: Record<string, () => Promise<[number, Stop]>> = {
  'ours-pg': async () => ours(await createPostgresTaskStore({ pool: countingPool(), ...direct })),
  // The same, one statement per commit (no batches), and also writing the task's JSON at every commit (as before snapshots).
  'ours-pg-unbatched': async () => ours(await createPostgresTaskStore({ pool: countingPool(), batchCommits: false })),
  'ours-pg-rewrite': async () => ours(await createPostgresTaskStore({ pool: countingPool(), batchCommits: false, snapshots: { events: 0 } })),
  'ours-pg-cluster': () => replica(),
  'ours-pg-cluster-unbatched': () => replica({ batchCommits: false }),
  'peer-pg': peer,
  'ours-memory': () => ours(createMemoryTaskStore()),
};

async function main(): Promise<void> {
  const kind = process.argv[2] ?? '';
  const start = kinds[kind];
  if (!start) throw new Error(`usage: pg-servers.ts ${Object.keys(kinds).join('|')}`);
  const [port, stop] = await start();
  const shutdown = () => void stop().finally(() => process.exit(0));
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  process.stdout.write(`READY ${port}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) void main();

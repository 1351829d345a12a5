import { cardSecurity, jwtAuth, SCOPES, scopePolicy } from '@taskwire/auth';
import { apiKeyAuth, createMemoryTaskStore, TaskService, withNextVersion, type Agent, type AgentCard, type AuthPolicy, type Authorize, type Logger, type TaskCoordinator, type TaskStore } from '@taskwire/core';
import { FileTaskStore } from '@taskwire/core/file';
import { createSqliteTaskStore } from '@taskwire/sqlite';
import { nodeSqlite } from '@taskwire/sqlite/node';
import { createPostgresCoordinator, createPostgresTaskStore, migrate, type MigrationResult } from '@taskwire/postgres';
import { grpcInterface, serveGrpc } from '@taskwire/server-grpc';
import { httpInterfaces, serveA2A } from '@taskwire/server-http';
import { attachWebSocket, wsInterface } from '@taskwire/server-ws';
import { referenceAgent } from './agent.js';
import { referenceAgentCard } from './card.js';
import type { ListenTarget } from './listen-error.js';
import { explainListenError } from './listen-error.js';
import type { AgentOptions } from './options.js';
import { createWebPage } from './web/page-server.js';


/** The URLs a running reference agent serves. */
export interface RunningAgent {
  readonly baseUrl: string;
  readonly urls: { jsonRpc: string; rest: string; ws: string; grpc: string; card: string; page: string };
  /** The base URL the card's interfaces point at (`--public-url`; the same as `baseUrl` without it). */
  readonly publicUrl: string;
  readonly service: TaskService;
  /** With a postgres store and `--migrate`: what the migration at start applied. */
  readonly migration?: MigrationResult;
  /**
   * Stops: takes no new connections (a load balancer sends new requests to
   * the other replicas), lets running agents finish within `graceMs`
   * (default 0: they stop at once), fails the tasks still running, ends
   * every stream (clients resume elsewhere), then closes the servers, the
   * cluster coordinator and the store.
   */
  close(graceMs?: number): Promise<void>;
}

/**
 * Opens the store the options name (a postgres one migrated first when
 * asked). With postgres, also the replica's coordinator: every process on
 * the same schema is then one cluster.
 */
async function openStore(store: AgentOptions['store'], logger: Logger | undefined): Promise<{ store: TaskStore; coordinator?: TaskCoordinator; migration?: MigrationResult }> {
  if (store.kind === 'memory') return { store: createMemoryTaskStore({ maxTasks: 100_000 }) };
  if (store.kind === 'file') return { store: await FileTaskStore.open(store.dir, { logger }) };
  if (store.kind === 'sqlite') return { store: await createSqliteTaskStore({ driver: nodeSqlite(store.path), ...(logger && { logger }) }) };
  const connection = { connectionString: store.url, schema: store.schema, ...(store.directUrl && { directConnectionString: store.directUrl }), ...(logger && { logger }) };
  const migration = store.migrate ? await migrate(connection) : undefined;
  const postgres = await createPostgresTaskStore(connection);
  try {
    const coordinator = await createPostgresCoordinator({ store: postgres, leaseTtlMs: store.leaseTtlMs, ...(store.replicaName && { replicaName: store.replicaName }), ...(store.rerunOrphans !== undefined && { rerunOrphans: store.rerunOrphans }), ...(logger && { logger }) });
    return { store: postgres, coordinator, ...(migration && { migration }) };
  } catch (error) {
    await postgres.close();
    throw error;
  }
}

/** The WebSocket endpoint under an HTTP base URL (`https:` becomes `wss:`). */
const wsUrlOf = (baseUrl: string) => `${baseUrl.replace(/^http/, 'ws')}/a2a/ws`;

/** Who may call: an API key, or OIDC tokens with scopes per method (and the card's security schemes saying so); default anyone. */
function accessOf(options: AgentOptions, logger: Logger | undefined): { auth?: AuthPolicy; authorize?: Authorize; security?: ReturnType<typeof cardSecurity> } {
  if (options.oidc) {
    const { issuer, audience } = options.oidc;
    return { auth: jwtAuth({ issuer, audience, ...(logger && { logger }) }), authorize: scopePolicy(), security: cardSecurity({ oidc: { issuer, scopes: [SCOPES.read, SCOPES.write] } }) };
  }
  if (options.apiKey) {
    return { auth: { authenticate: apiKeyAuth({ [options.apiKey]: 'api-key-user' }), challenge: 'ApiKey header="x-api-key"' }, security: cardSecurity({ apiKey: true }) };
  }
  return {};
}

/**
 * Serves the reference agent (or `served`: another agent and its card, as
 * examples/ai-sdk-agent does) on every transport: JSON-RPC, HTTP+JSON, the
 * card, WebSocket and the web page (at `/`) on one HTTP port, gRPC on
 * another; one service and one store behind them all. Before serving, tasks
 * a previous run left submitted or working (it crashed or was killed) are
 * failed with a message saying so (`TaskService.recover`).
 */
export async function serveAll(
  options: AgentOptions,
  logger?: Logger,
  served: { agent: Agent; card: AgentCard } = { agent: referenceAgent, card: referenceAgentCard([]) },
): Promise<RunningAgent> {
  const page = createWebPage({ endpoints: ['POST /a2a/jsonrpc', '/a2a/rest/...', 'GET /.well-known/agent-card.json', 'WebSocket /a2a/ws'], logger });
  const { store, coordinator, migration } = await openStore(options.store, logger);
  const { auth, authorize, security } = accessOf(options, logger);
  const { agent } = served;
  const card = { ...served.card, ...security };
  const service = new TaskService({ store, agent, card, ...(authorize && { authorize }), ...(logger && { logger }), ...(coordinator && { coordinator }), ...(options.protocolV1_1 && { protocol: { v1_1: true } }) });
  const opened: (() => Promise<void>)[] = [() => store.close(), ...(coordinator ? [() => coordinator.close()] : [])];
  const abandon = async (error: unknown): Promise<never> => {
    for (const close of opened.reverse()) await close().catch(() => undefined);
    throw error;
  };
  // Tasks a crashed or killed run left submitted or working fail now, saying so, instead of hanging forever
  // (in a cluster: only those no live replica runs).
  await service.recover().catch(abandon);
  const listening = (option: ListenTarget['option'], port: number) => (error: unknown) => abandon(explainListenError(error, { option, host: options.host, port }));
  const grpc = await serveGrpc({
    service,
    port: options.grpcPort,
    host: options.host,
    ...(options.publicGrpcUrl !== undefined && { publicUrl: options.publicGrpcUrl }),
    ...(auth && { auth }),
    ...(logger && { logger }),
  }).catch(listening('--grpc-port', options.grpcPort));
  opened.push(() => grpc.close(1_000));
  // Behind a balancer, this process's own gRPC address would take clients past it: list gRPC only where it is public.
  const behindProxy = options.publicUrl !== undefined || options.trustProxy === true;
  const grpcInterfaces = options.publicGrpcUrl !== undefined || !behindProxy ? [grpcInterface(grpc.publicUrl)] : [];
  const http = await serveA2A({
    service,
    port: options.port,
    host: options.host,
    ...(auth && { auth }),
    ...(logger && { logger }),
    fallback: page.handle,
    // The clients the seeds describe speak v0.3 and find an agent by the v0.3 card fields.
    v03Discovery: true,
    // Liveness at /healthz, readiness (store reachable, not draining) at /readyz.
    health: true,
    // Every interface under the public base URL (--public-url, a trusted proxy's report, else this process's own).
    ...(options.publicUrl !== undefined && { publicUrl: options.publicUrl }),
    trustProxy: options.trustProxy ?? false,
    card: (baseUrl) => {
      const interfaces = [...httpInterfaces(baseUrl), ...grpcInterfaces, wsInterface(wsUrlOf(baseUrl))];
      // Served A2A 1.1 (--protocol-v1-1): each interface as 1.1 first, then again as 1.0.
      return { ...card, supportedInterfaces: options.protocolV1_1 ? withNextVersion(interfaces) : interfaces };
    },
  }).catch(listening('--port', options.port));
  const wsUrl = wsUrlOf(http.url);
  const ws = attachWebSocket({ server: http.server, service, path: '/a2a/ws', ...(auth && { auth }), ...(logger && { logger }) });
  return {
    baseUrl: http.url,
    publicUrl: http.publicUrl,
    urls: {
      jsonRpc: `${http.url}/a2a/jsonrpc`,
      rest: `${http.url}/a2a/rest`,
      ws: wsUrl,
      grpc: grpc.url,
      card: `${http.url}/.well-known/agent-card.json`,
      page: `${http.url}/`,
    },
    service,
    ...(migration && { migration }),
    async close(graceMs = 0) {
      const servers = Promise.all([ws.close(1_000), http.close(), grpc.close(graceMs + 1_000)]);
      await service.drain(graceMs);
      await servers;
      await coordinator?.close();
      await store.close();
    },
  };
}

import type { Agent, AgentCard } from '@taskwire/core';
import type pg from 'pg';
import { TaskService } from '@taskwire/core';
import { webhookDelivery, type WebhookDelivery } from '@taskwire/core/push';
import type { TestDatabase } from '../database-test-kit.js';
import { createPostgresPushConfigStore, type PostgresPushConfigStore } from '../push-store.js';
import { createPostgresTaskStore, type PostgresTaskStore } from '../task-store.js';
import { createPostgresCoordinator, type PostgresCoordinator } from './coordinator.js';

/** One replica of a test cluster: its own store, coordinator and service (and push, when asked) on a shared schema. */
export interface TestReplica {
  readonly service: TaskService;
  readonly store: PostgresTaskStore;
  readonly coordinator: PostgresCoordinator;
  readonly push?: { readonly configs: PostgresPushConfigStore; readonly delivery: WebhookDelivery };
  /** Closes the service, the coordinator and the stores, in that order. */
  close(): Promise<void>;
}

/** What {@link openTestReplica} builds. */
export interface TestReplicaOptions {
  readonly agent: Agent;
  readonly card?: AgentCard;
  readonly leaseTtlMs?: number;
  readonly rerunOrphans?: number;
  /** A store pool of its own with this many connections (instead of the test database's shared pool). */
  readonly poolSize?: number;
  /** The store's pool (one the test made: counting its statements, say), instead of the test database's shared pool. */
  readonly pool?: pg.Pool;
  /** Push notifications through webhooks on 127.0.0.1, with this claim time to live. */
  readonly push?: { readonly claimTtlMs: number };
}

/** Opens a replica on `schema` of `db`, as a process of a cluster would (in this process, with its own objects). */
export async function openTestReplica(db: TestDatabase, schema: string, options: TestReplicaOptions): Promise<TestReplica> {
  const store = await createPostgresTaskStore(
    options.poolSize ? { connectionString: db.url, poolSize: options.poolSize, schema } : { pool: options.pool ?? db.pool, schema },
  );
  const coordinator = await createPostgresCoordinator({
    store,
    ...(options.leaseTtlMs !== undefined && { leaseTtlMs: options.leaseTtlMs }),
    ...(options.rerunOrphans !== undefined && { rerunOrphans: options.rerunOrphans }),
  });
  const push = options.push && {
    configs: await createPostgresPushConfigStore({ pool: db.pool, schema, coordinator }),
    delivery: webhookDelivery({ allow: ['127.0.0.1'], claimTtlMs: options.push.claimTtlMs }),
  };
  const service = new TaskService({
    store,
    agent: options.agent,
    coordinator,
    ...(options.card && { card: options.card }),
    ...(push && { push: { store: push.configs, delivery: push.delivery } }),
  });
  return {
    service,
    store,
    coordinator,
    ...(push && { push }),
    async close() {
      await service.close();
      await coordinator.close();
      await push?.configs.close();
      await store.close();
    },
  };
}

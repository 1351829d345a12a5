import type { Task } from '@taskwire/core';
import { describePostgres } from '@taskwire/postgres/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Cluster } from './support/cluster.js';
import { crashed, finalTasks, isRetryable, send, unexpected, until } from './support/fault-kit.js';
import { storedLogProblems } from './support/logs.js';
import { OwnPostgres } from './support/own-postgres.js';

/** Longer than a restart takes here (about a second), so tasks whose replica stayed up must complete. */
const LEASE_TTL_MS = 6_000;

describePostgres('a database restart under load: 3 replica processes on a PostgreSQL of their own, restarted with pg_ctl', () => {
  let postgres: OwnPostgres;
  let cluster: Cluster;
  const figures: Record<string, unknown>[] = [];

  beforeAll(async () => {
    postgres = OwnPostgres.start();
    cluster = await Cluster.start({ size: 3, databaseUrl: postgres.url, schema: 'taskwire', args: ['--lease-ttl-ms', String(LEASE_TTL_MS)] });
  }, 180_000);
  afterAll(async () => {
    process.stdout.write(`restart figures: ${JSON.stringify(figures)}\n`);
    await cluster?.close();
    postgres?.stop();
  });

  const readyz = async (index: number): Promise<number> => {
    const base = new URL(cluster.replicas[index]!.urls.jsonRpc);
    return (await fetch(`${base.origin}/readyz`).catch(() => undefined))?.status ?? 0;
  };

  for (const mode of ['fast', 'immediate'] as const) {
    it(`pg_ctl restart -m ${mode}: every replica reconnects by itself, nothing acknowledged is lost, running tasks complete, calls meanwhile get a retryable error and /readyz says not ready`, async () => {
      const planted = await Promise.all(cluster.replicas.map((r) => send(cluster.transport('JSON-RPC', r.index), 'slow 40 100')));
      let stop = false;
      const acked: string[] = [];
      const refusals: { ms: number; retryable: boolean }[] = [];
      const readiness = new Set<number>();
      const load = Promise.all(
        cluster.replicas.map(async (r) => {
          while (!stop) {
            const started = Date.now();
            try {
              acked.push((await send(cluster.transport('JSON-RPC', r.index), 'echo under restart', { blocking: true })).id);
            } catch (error) {
              refusals.push({ ms: Date.now() - started, retryable: isRetryable(error) });
            }
          }
        }),
      );
      // What a load balancer's health check sees of one replica: ready before the restart (sampled first, so the
      // set holds it even when the database goes down before the sampler's first answer), then meanwhile.
      readiness.add(await readyz(0));
      const sampling = (async () => {
        while (!stop) {
          readiness.add(await readyz(0));
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })();
      await postgres.restart(mode);
      // Every replica serves again by itself (no duration is asserted here: bench/ measures times).
      await until(async () => (await Promise.all(cluster.replicas.map((r) => readyz(r.index)))).every((s) => s === 200), 'every replica ready again', 30_000);
      stop = true;
      await Promise.all([load, sampling]);
      const tasks: Map<string, Task> = await finalTasks(cluster.transport('JSON-RPC', 1), planted.map((t) => t.id), 30_000);
      const stored = await finalTasks(cluster.transport('JSON-RPC', 2), acked, 20_000, true);
      figures.push({ mode, acked: acked.length, ackedLost: acked.length - stored.size, refused: refusals.length, slowestRefusalMs: Math.max(0, ...refusals.map((r) => r.ms)), readiness: [...readiness], healthyFailed: unexpected(tasks, 'TASK_STATE_COMPLETED').length });
      expect(unexpected(tasks, 'TASK_STATE_COMPLETED')).toEqual([]);
      expect(stored.size).toBe(acked.length);
      expect(refusals.filter((r) => !r.retryable)).toEqual([]);
      expect(readiness.has(503) && readiness.has(200)).toBe(true);
      expect(crashed(cluster)).toEqual([]);
      expect(await storedLogProblems(postgres.url, cluster.schema, [...planted.map((t) => t.id), ...acked])).toEqual([]);
    }, 120_000);
  }
});

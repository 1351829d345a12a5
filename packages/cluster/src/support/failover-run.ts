import { Cluster } from './cluster.js';
import { crashed, until } from './fault-kit.js';
import { FailoverLoad, lostEvents, storedLogs } from './failover-load.js';
import { FaultProxy } from './fault-proxy.js';
import { storedLogProblems } from './logs.js';
import { replicatedPair, type ReplicatedPair } from './replicated-postgres.js';

/** Steps a failover test adds to the failover (see {@link failover}): the pair, and the proxy when the address is switched. */
export interface FailoverHooks {
  /** Right after the primary's WAL sender was paused (with `lagMs`). */
  readonly senderPaused?: (pair: ReplicatedPair, proxy: FaultProxy | undefined) => void;
  readonly beforeSwitch?: (pair: ReplicatedPair, proxy: FaultProxy | undefined) => Promise<void>;
  readonly afterFailover?: (pair: ReplicatedPair, proxy: FaultProxy | undefined) => Promise<void>;
}

/** Short leases: a failover here takes a second or two, and tasks whose replica stayed up must still complete. */
export const LEASE_TTL_MS = 5_000;
const SCHEMA = 'taskwire';

/** How a run reaches PostgreSQL: one address moved to the promoted standby (a proxy here), or a string naming both servers. */
export type Reach = 'switched address' | 'multi-host URL';

export interface Figures {
  readonly replication: 'synchronous' | 'asynchronous';
  readonly reach: Reach;
  readonly lagWindowMs: number;
  readonly firstCommitAfterKillMs: number;
  readonly acked: number;
  readonly ackedLost: number;
  readonly eventsSeen: number;
  readonly eventsLost: number;
  readonly eventsReplaced: number;
  /** Stored tasks whose log skips numbers: settled after events a failover lost (see `TaskStore.commitFrom`). */
  readonly gaps: number;
  readonly beyondLog: number;
  /** Stored tasks still running when the test stopped waiting (four leases after the load). */
  readonly stuck: number;
  /** Whether every client call and stream of the load ended after it stopped. */
  readonly settled: boolean;
}

/**
 * Two replica processes on a primary with a streaming standby, under load
 * (acknowledged echoes, streams followed on the other replica, continuations,
 * cancels); then kill -9 of the primary and `pg_ctl promote` of the standby.
 * With `lagMs`, the primary's WAL sender is paused that long before the
 * kill (an asynchronous standby that far behind; a synchronous one holds
 * commits that only the primary has, unacknowledged). `hooks.beforeSwitch`
 * runs once the standby is promoted, before the address moves to it (or,
 * with a multi-host URL, at once); `hooks.senderPaused` right after the
 * WAL sender was paused; `hooks.afterFailover` once tasks sent
 * after the kill were acknowledged. Resolves the figures, what the store
 * holds instead of events clients saw, the load, the stored tasks, the
 * stored logs' problems and the replicas that crashed.
 */
export async function failover(synchronous: boolean, reach: Reach, lagMs = 0, hooks: FailoverHooks = {}) {
  const pair = await replicatedPair({ synchronous });
  const proxy = reach === 'switched address' ? await FaultProxy.start({ host: '127.0.0.1', port: pair.primaryPort }) : undefined;
  const url = proxy?.url(pair.primaryUrl) ?? `postgres://postgres@127.0.0.1:${pair.primaryPort},127.0.0.1:${pair.standbyPort}/postgres?target_session_attrs=read-write`;
  let cluster: Cluster | undefined;
  try {
    cluster = await Cluster.start({ size: 2, databaseUrl: url, schema: SCHEMA, args: ['--lease-ttl-ms', String(LEASE_TTL_MS)] });
    const load = new FailoverLoad(cluster);
    load.start();
    await until(() => load.acked.length >= 6 && load.seen.size >= 2, 'load under way', 60_000);
    let sender: number | undefined;
    let pausedAt = 0;
    if (lagMs > 0) {
      // The primary's WAL sender stops sending: what commits meanwhile never reaches the standby.
      sender = Number((await pair.psql(pair.primaryPort, 'SELECT pid FROM pg_stat_replication')).trim());
      process.kill(sender, 'SIGSTOP');
      pausedAt = Date.now();
      hooks.senderPaused?.(pair, proxy);
      await new Promise((resolve) => setTimeout(resolve, lagMs));
    }
    const killedAt = await pair.killPrimary();
    // How long the standby received nothing before the primary died (the pause, and the time to find and kill its processes).
    const lagWindowMs = lagMs > 0 ? killedAt - pausedAt : 0;
    await pair.promote();
    await hooks.beforeSwitch?.(pair, proxy);
    proxy?.switchTo({ host: '127.0.0.1', port: pair.standbyPort });
    proxy?.reset();
    await until(() => load.acked.some((a) => a.sent > killedAt), 'a task sent after the kill acknowledged', 60_000);
    // LISTEN and both replicas' name locks are back, on the new primary.
    const listeners = "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'taskwire listener%'";
    await until(async () => Number(await pair.psql(pair.standbyPort, listeners)) >= 2, 'both LISTEN sessions on the new primary', 30_000).catch(async (error: unknown) => {
      throw new Error(`${String(error)}: ${await pair.psql(pair.standbyPort, 'SELECT application_name, state FROM pg_stat_activity')}\n${cluster!.stderr(0).slice(-3000)}`);
    });
    await hooks.afterFailover?.(pair, proxy);
    // More load after the failover: streams on one replica follow tasks run on the other.
    const ackedBefore = load.acked.length;
    await until(() => load.acked.length >= ackedBefore + 6, 'more acknowledged tasks after the failover', 60_000);
    const settled = await load.stop(2 * LEASE_TTL_MS);
    // Measured from the kill to the answer of the first task sent after it (its commits were on the new primary).
    const firstCommitAfterKillMs = Math.min(...load.acked.filter((a) => a.sent > killedAt).map((a) => a.at)) - killedAt;
    // Tasks end (or, after a loss, are gone); allow the take-over of a lease lost with the old primary.
    const ids = [...new Set([...load.planted, ...load.acked.map((a) => a.id)])];
    const ended = (t: { state: string }) => /COMPLETED|CANCELED|FAILED|REJECTED|INPUT_REQUIRED/.test(t.state);
    await until(async () => [...(await storedLogs(pair.standbyUrl, SCHEMA, ids)).values()].every(ended), 'every stored task ended or awaiting input', 4 * LEASE_TTL_MS).catch(() => undefined);
    const stored = await storedLogs(pair.standbyUrl, SCHEMA, ids);
    const events = lostEvents(load, stored);
    const figures: Figures = {
      replication: synchronous ? 'synchronous' : 'asynchronous',
      reach,
      lagWindowMs,
      firstCommitAfterKillMs,
      acked: load.acked.length,
      ackedLost: load.acked.filter((a) => !stored.has(a.id)).length,
      eventsSeen: [...load.seen.values()].reduce((n, s) => n + s.size, 0),
      eventsLost: events.lost,
      eventsReplaced: events.replacedBy.length,
      gaps: [...stored.values()].filter(({ log }) => log.size > 0 && Math.max(...log.keys()) !== log.size).length,
      beyondLog: load.beyondLog,
      stuck: [...stored.values()].filter((t) => !ended(t)).length,
      settled,
    };
    process.stdout.write(`failover figures: ${JSON.stringify(figures)}\n${events.samples.join('\n')}\n`);
    return { figures, replacedBy: events.replacedBy, load, stored, problems: await storedLogProblems(pair.standbyUrl, SCHEMA, [...stored.keys()]), crashed: crashed(cluster) };
  } finally {
    await cluster?.close();
    await proxy?.close();
    await pair.destroy();
  }
}

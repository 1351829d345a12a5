import { describePostgres } from '@taskwire/postgres/testing';
import { expect, it } from 'vitest';
import { failover } from './support/failover-run.js';

describePostgres('a PostgreSQL failover under load: 2 replica processes, a primary killed with SIGKILL, its standby promoted', () => {
  for (const reach of ['switched address', 'multi-host URL'] as const) {
    it(`synchronous replication, reached through a ${reach}: no acknowledged event lost, every task ends once, streams follow tasks across replicas`, async () => {
      const run = await failover(true, reach);
      expect(run.load.unexpected).toEqual([]);
      expect(run.figures.ackedLost).toBe(0);
      expect(run.figures.eventsLost).toBe(0);
      expect(run.figures.eventsReplaced).toBe(0);
      expect(run.figures.beyondLog).toBe(0);
      expect(run.figures.stuck).toBe(0);
      expect(run.figures.settled).toBe(true);
      expect(run.stored.size).toBe(new Set([...run.load.planted, ...run.load.acked.map((a) => a.id)]).size);
      expect(run.problems).toEqual([]);
      expect(run.crashed).toEqual([]);
    }, 240_000);
  }

  it('asynchronous replication with the standby 300 ms behind: losses are counted, a run never re-applies its events onto the older log', async () => {
    const run = await failover(false, 'switched address', 300);
    // Losses are expected (and reported). No sequence number a client saw is stored with other content: a run never
    // writes its events again onto the older log, and the replica that ran the task fails it after what it published.
    expect(run.replacedBy).toEqual([]);
    expect(run.problems).toEqual([]);
    expect(run.crashed).toEqual([]);
  }, 240_000);
});

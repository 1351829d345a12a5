import { randomBytes } from 'node:crypto';
import { createPostgresTaskStore } from '@taskwire/postgres';
import { describePostgres } from '@taskwire/postgres/testing';
import { afterAll, expect, it } from 'vitest';
import { AckLog } from './crash/acked.js';
import { killDuringStartup, loadUntilKilled } from './crash/kill-round.js';
import { checkOverWire, checkTasks } from './crash/verify.js';
import type { AgentProcess } from './support/agent-process.js';
import { spawnAgent } from './support/agent-process.js';
import { Random, suiteSeed } from './support/random.js';
import { TransportSet } from './support/transports.js';

/** Kills under load; some more during startup (while it migrates and recovers) come on top. */
const ROUNDS = 10;
const WORKERS = 6;
const SEED = suiteSeed(20_261_124);

const running = new Set<AgentProcess>();
afterAll(async () => {
  await Promise.all([...running].map((agent) => agent.kill()));
});

describePostgres('crash safety: the reference agent on PostgreSQL, killed with SIGKILL at random moments', (db) => {
  it(`keeps every acknowledged send whole and lets cut streams resume, over ${ROUNDS} kills under load (and some during startup)`, async () => {
    const schema = `tw_crash_${randomBytes(5).toString('hex')}`;
    const random = new Random(SEED);
    const acked = new AckLog();
    const problems: string[] = [];
    const figures = { rounds: 0, calls: 0, resumed: 0, killedBeforeReady: 0, tasks: 0 };
    const recovered = new Set<string>();
    const start = () => {
      // One server restarted again and again, as under systemd: the same replica name each time. Each process takes its
      // gone predecessor's tasks over, settling them after a gap (the checks below allow the task skipping ahead).
      const agent = spawnAgent({ store: { url: db.url }, args: ['--schema', schema, '--migrate', '--replica-name', 'crash-safety'] });
      running.add(agent);
      return agent;
    };
    /** Reads the tables the killed server left, as a store in this process. */
    const checkTables = async (round: number) => {
      const store = await createPostgresTaskStore({ pool: db.pool, schema });
      try {
        const checked = await checkTasks(store, acked, true);
        problems.push(...checked.problems.map((p) => `round ${round}, in the database: ${p}`));
        figures.tasks = checked.tasks;
      } finally {
        await store.close();
      }
    };
    try {
      for (let round = 1; figures.rounds < ROUNDS; round++) {
        if (round > 1 && random.chance(0.2)) {
          // A kill while the server starts: migrating (a no-op by now, under its lock) and failing what the last kill left running.
          const early = start();
          await killDuringStartup(early, random);
          running.delete(early);
          figures.killedBeforeReady++;
          await checkTables(round);
          continue;
        }
        const agent = start();
        const transports = new TransportSet(await agent.ready);
        const wire = await checkOverWire(transports, acked, random, true);
        problems.push(...wire.problems.map((p) => `round ${round}, after the restart: ${p}`));
        for (const id of wire.recovered) recovered.add(id);
        figures.resumed += wire.resumed;
        const report = await loadUntilKilled(agent, transports, acked, random, WORKERS);
        running.delete(agent);
        figures.calls += report.calls;
        figures.rounds++;
        problems.push(...report.failures.map((f) => `round ${round}, a call failed while the server was up: ${f}`));
        await checkTables(round);
      }
      // A last start checks the last kill's aftermath over the wire; a clean stop follows.
      const last = start();
      const transports = new TransportSet(await last.ready);
      const wire = await checkOverWire(transports, acked, random, true);
      problems.push(...wire.problems.map((p) => `after the last restart: ${p}`));
      for (const id of wire.recovered) recovered.add(id);
      await transports.close();
      expect(await last.stop()).toBe(0);
      running.delete(last);
      await checkTables(ROUNDS + 1);
    } finally {
      await db.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    }
    console.log(
      `crash safety on PostgreSQL (seed ${SEED}): ${figures.rounds} SIGKILL rounds under load, ${figures.killedBeforeReady} during startup, ` +
        `${figures.calls} calls, ${acked.sends} acknowledged sends on ${acked.tasks.size} tasks (${figures.tasks} in the database) checked after every kill, ` +
        `${recovered.size} running tasks failed on restart, ${figures.resumed} cut streams resumed, lost or broken: ${problems.length}`,
    );
    expect(problems).toEqual([]);
    expect(acked.sends).toBeGreaterThan(ROUNDS);
  }, 240_000);
});

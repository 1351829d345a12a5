import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { node22 } from '../../../scripts/node22.mjs';
import { AckLog } from './crash/acked.js';
import { killDuringStartup, loadUntilKilled } from './crash/kill-round.js';
import { checkOverWire } from './crash/verify.js';
import type { AgentProcess } from './support/agent-process.js';
import { spawnAgent } from './support/agent-process.js';
import { Random, suiteSeed } from './support/random.js';
import { TransportSet } from './support/transports.js';

/** Kills under load; some more during startup come on top. */
const ROUNDS = 8;
const WORKERS = 6;
const SEED = suiteSeed(20_261_207);

const running = new Set<AgentProcess>();
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all([...running].map((agent) => agent.kill()));
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('crash safety: the reference agent on SQLite (node:sqlite, on Node 22), killed with SIGKILL at random moments', () => {
  it(`keeps every acknowledged send whole and lets cut streams resume, over ${ROUNDS} kills under load (and some during startup)`, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'taskwire-crash-sqlite-'));
    dirs.push(dir);
    const node = node22() as string;
    const random = new Random(SEED);
    const acked = new AckLog();
    const problems: string[] = [];
    const figures = { rounds: 0, calls: 0, resumed: 0, killedBeforeReady: 0 };
    const recovered = new Set<string>();
    const start = () => {
      const agent = spawnAgent({ store: { sqlite: join(dir, 'tasks.db') }, node });
      running.add(agent);
      return agent;
    };
    /** Starts the server and checks, over the wire, that the last kill lost nothing acknowledged. */
    const restartAndCheck = async (label: string) => {
      const agent = start();
      const transports = new TransportSet(await agent.ready);
      const wire = await checkOverWire(transports, acked, random);
      problems.push(...wire.problems.map((p) => `${label}: ${p}`));
      for (const id of wire.recovered) recovered.add(id);
      figures.resumed += wire.resumed;
      return { agent, transports };
    };
    for (let round = 1; figures.rounds < ROUNDS; round++) {
      if (round > 1 && random.chance(0.2)) {
        // A kill while the server starts (opening the file, failing what the last kill left running).
        const early = start();
        await killDuringStartup(early, random);
        running.delete(early);
        figures.killedBeforeReady++;
        continue;
      }
      const { agent, transports } = await restartAndCheck(`round ${round}, after the restart`);
      const report = await loadUntilKilled(agent, transports, acked, random, WORKERS);
      running.delete(agent);
      figures.calls += report.calls;
      figures.rounds++;
      problems.push(...report.failures.map((f) => `round ${round}, a call failed while the server was up: ${f}`));
    }
    const last = await restartAndCheck('after the last restart');
    await last.transports.close();
    expect(await last.agent.stop()).toBe(0);
    running.delete(last.agent);
    console.log(
      `crash safety on SQLite (seed ${SEED}): ${figures.rounds} SIGKILL rounds under load, ${figures.killedBeforeReady} during startup, ` +
        `${figures.calls} calls, ${acked.sends} acknowledged sends on ${acked.tasks.size} tasks checked over the wire after every restart, ` +
        `${recovered.size} running tasks failed on restart, ${figures.resumed} cut streams resumed, lost or broken: ${problems.length}`,
    );
    expect(problems).toEqual([]);
    expect(acked.sends).toBeGreaterThan(ROUNDS);
  }, 240_000);
});

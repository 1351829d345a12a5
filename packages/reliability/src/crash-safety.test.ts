import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AckLog } from './crash/acked.js';
import { after, loadUntilKilled } from './crash/kill-round.js';
import { checkOverWire, checkStore } from './crash/verify.js';
import type { AgentProcess } from './support/agent-process.js';
import { spawnAgent } from './support/agent-process.js';
import { Random, suiteSeed } from './support/random.js';
import { TransportSet } from './support/transports.js';

/** Rounds with load before the kill; extra kills during startup come on top. */
const ROUNDS = 22;
const WORKERS = 6;
const SEED = suiteSeed(20_260_921);

const running = new Set<AgentProcess>();
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all([...running].map((agent) => agent.kill()));
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('crash safety: the reference agent with a file store, killed with SIGKILL at random moments', () => {
  it(`keeps every acknowledged send, tears no record and lets cut streams resume, over ${ROUNDS} kills under load (and some during startup)`, async () => {
    const random = new Random(SEED);
    const dir = await mkdtemp(join(tmpdir(), 'taskwire-crash-'));
    dirs.push(dir);
    const acked = new AckLog();
    const problems: string[] = [];
    const figures = { rounds: 0, loaded: 0, calls: 0, tornTails: 0, resumed: 0, killedBeforeReady: 0 };
    const recovered = new Set<string>();

    /** Starts the server on the store and checks, over the wire, what the last kill left. */
    const restartAndCheck = async (round: number) => {
      const agent = spawnAgent({ store: { dir } });
      running.add(agent);
      const urls = await agent.ready;
      const transports = new TransportSet(urls);
      try {
        const wire = await checkOverWire(transports, acked, random);
        problems.push(...wire.problems.map((p) => `round ${round}, after the restart: ${p}`));
        for (const id of wire.recovered) recovered.add(id);
        figures.resumed += wire.resumed;
      } catch (error) {
        await transports.close();
        throw error;
      }
      return { agent, transports };
    };

    const afterKill = async (round: number) => {
      figures.rounds++;
      const store = await checkStore(dir, acked);
      problems.push(...store.problems.map((p) => `round ${round}, in the store files: ${p}`));
      if (store.tornTail) figures.tornTails++;
    };

    for (let round = 1; figures.loaded < ROUNDS; round++) {
      if (round > 1 && random.chance(0.15)) {
        // A kill while the server starts (opening the log, failing what the last kill left running).
        const early = spawnAgent({ store: { dir } });
        running.add(early);
        await Promise.race([after(random.int(150, 1_200)), early.exited]);
        await early.kill();
        running.delete(early);
        figures.killedBeforeReady++;
        await afterKill(round);
        continue;
      }
      const { agent, transports } = await restartAndCheck(round);
      const report = await loadUntilKilled(agent, transports, acked, random, WORKERS);
      running.delete(agent);
      figures.calls += report.calls;
      figures.loaded++;
      problems.push(...report.failures.map((f) => `round ${round}, a call failed while the server was up: ${f}`));
      await afterKill(round);
    }

    // A last restart checks the last kill's aftermath, then a clean stop must leave nothing to repair.
    const last = await restartAndCheck(ROUNDS + 1);
    await last.transports.close();
    expect(await last.agent.stop()).toBe(0);
    running.delete(last.agent);
    const final = await checkStore(dir, acked);
    problems.push(...final.problems.map((p) => `after the clean stop: ${p}`));
    expect(final.tornTail).toBe(false);

    const lost = problems.length;
    console.log(
      `crash safety (seed ${SEED}): ${figures.rounds} SIGKILL rounds (${figures.loaded} under load, ${figures.killedBeforeReady} during startup), ` +
        `${figures.calls} calls, ${acked.sends} acknowledged sends on ${acked.tasks.size} tasks checked after every restart, ` +
        `${figures.tornTails} torn tails truncated on reopen, ${recovered.size} running tasks failed on restart, ` +
        `${figures.resumed} cut streams resumed, lost or broken: ${lost}`,
    );
    expect(problems).toEqual([]);
    expect(figures.loaded).toBeGreaterThanOrEqual(20);
    expect(acked.sends).toBeGreaterThan(ROUNDS);
  }, 240_000);
});

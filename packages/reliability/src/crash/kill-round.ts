import type { AgentProcess } from '../support/agent-process.js';
import type { Random } from '../support/random.js';
import type { TransportSet } from '../support/transports.js';
import type { AckLog } from './acked.js';
import { runLoad, type LoadReport } from './load.js';

/** A timer for a kill moment (the moment is what is under test; nothing waits on it to be in sync). */
export const after = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One round of a crash test: `workers` drive `agent` over `transports`
 * (see {@link runLoad}) until a SIGKILL at a random moment 120-900 ms in
 * (or until the load ends); then the load is stopped and the transports
 * closed. Resolves what the load did before the kill.
 */
export async function loadUntilKilled(agent: AgentProcess, transports: TransportSet, acked: AckLog, random: Random, workers: number): Promise<LoadReport> {
  const killed = new AbortController();
  const stop = new AbortController();
  const load = runLoad(transports, acked, random.fork(), workers, { killed: killed.signal, stop: stop.signal });
  await Promise.race([after(random.int(120, 900)), load]);
  killed.abort();
  await agent.kill();
  stop.abort();
  const report = await load;
  await transports.close();
  return report;
}

/**
 * A kill while `agent` starts (opening its store, failing what the last
 * kill left running): SIGKILL at a random moment 150-1,500 ms after the
 * start, or when it exits by itself first. Resolves once it is gone.
 */
export async function killDuringStartup(agent: AgentProcess, random: Random): Promise<void> {
  await Promise.race([after(random.int(150, 1_500)), agent.exited]);
  await agent.kill();
}

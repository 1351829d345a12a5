/**
 * Issue 2's benchmark: the in-memory TaskService with the reference agent's
 * `echo`, for the memory store and the durable file store (fsync on).
 * Reports sends per second, heap bytes per stored task at N tasks, and the
 * reopen time of the N-task file store.
 *
 *   cd bench && npx -y pnpm@10.34.9 exec tsx src/core-bench.ts [N] [concurrency] [memory]
 *
 *   (a third argument `memory` measures the memory store alone). µs per send is
 *   wall time (the sends are all this process does); CPU µs per send is the
 *   process's user + system time, steadier when other work shares the cores.
 *
 *   (after `npx -y pnpm@10.34.9 -r --filter "./packages/**" build`: it measures the built
 *   packages; add --conditions=@taskwire/source to measure the TypeScript sources instead)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { createMemoryTaskStore, TaskService, type TaskStore } from '@taskwire/core';
import { FileTaskStore } from '@taskwire/core/file';
import { referenceAgent } from '@taskwire/reference-agent';

if (typeof globalThis.gc !== 'function') {
  // Re-run with --expose-gc so heap figures are taken after a full collection.
  const r = spawnSync(process.execPath, ['--expose-gc', ...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}

const N = Number(process.argv[2] ?? 100_000);
const CONCURRENCY = Number(process.argv[3] ?? 64);
const MEMORY_ONLY = process.argv[4] === 'memory';

function heapUsed(): number {
  for (let i = 0; i < 3; i++) globalThis.gc!();
  return process.memoryUsage().heapUsed;
}

/** Sends `count` echoes; resolves sends per second and the process's CPU µs per send (user + system). */
async function drive(service: TaskService, count: number): Promise<{ rate: number; cpuUs: number }> {
  let next = 0;
  const started = performance.now();
  const cpu = process.cpuUsage();
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const result = await service.unary('SendMessage', {
        message: { messageId: `m-${i}`, role: 'ROLE_USER', parts: [{ text: `echo hello ${i}` }] },
      });
      if (!('task' in result) || result.task.status.state !== 'TASK_STATE_COMPLETED') throw new Error('echo did not complete');
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const used = process.cpuUsage(cpu);
  return { rate: count / ((performance.now() - started) / 1000), cpuUs: (used.user + used.system) / count };
}

async function measure(name: string, open: () => Promise<TaskStore>) {
  const store = await open();
  const service = new TaskService({ store, agent: referenceAgent });
  await drive(service, Math.min(2_000, N)); // warm-up (counted in the stored tasks below)
  const before = heapUsed();
  const { rate, cpuUs } = await drive(service, N);
  await service.idle();
  const after = heapUsed();
  const stored = (await store.list({ owner: '', pageSize: 1 })).totalSize;
  const perTask = (after - before) / N;
  await service.close();
  await store.close();
  return { name, rate, cpuUs, perTask, stored };
}

const dir = await mkdtemp(join(tmpdir(), 'taskwire-bench-'));
try {
  const rows = [];
  rows.push(await measure('memory store', async () => createMemoryTaskStore({ maxTasks: Infinity })));
  let reopen = '';
  if (!MEMORY_ONLY) {
    rows.push(await measure('file store (fsync on)', () => FileTaskStore.open(dir, { fsync: true })));
    const reopenStart = performance.now();
    const reopened = await FileTaskStore.open(dir);
    const reopenMs = performance.now() - reopenStart;
    reopen = `\nfile store reopen: ${reopened.stats().tasks.toLocaleString()} tasks in ${reopenMs.toFixed(0)} ms`;
    await reopened.close();
  }

  console.log(`\nTaskService + reference agent echo, ${N.toLocaleString()} blocking SendMessage calls, ${CONCURRENCY} in flight (node ${process.version})\n`);
  console.log('| store | sends/s | µs per send | CPU µs per send | heap bytes per stored task | tasks stored |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    const us = (1e6 / r.rate).toFixed(2);
    console.log(`| ${r.name} | ${Math.round(r.rate).toLocaleString()} | ${us} | ${r.cpuUs.toFixed(2)} | ${Math.round(r.perTask).toLocaleString()} | ${r.stored.toLocaleString()} |`);
  }
  if (reopen) console.log(reopen);
} finally {
  await rm(dir, { recursive: true, force: true });
}

/**
 * Bytes allocated per blocking send: the `TaskService` on the memory store
 * with the reference agent's `echo`, 64 in flight, in this process. After a
 * warm-up, V8's sampling heap profiler (`node:inspector`, every sampled
 * allocation counted, those collected since included) runs around the
 * measured sends only; the sampled bytes divided by the sends is the
 * allocation per send. Prints it per round and the functions that allocate
 * most (self bytes per send).
 *
 *   cd bench && npx -y pnpm@10.34.9 exec tsx --conditions=@taskwire/source src/send-alloc-bench.ts [--sends 20000] [--rounds 3] [--top 12]
 */
import { Session } from 'node:inspector/promises';
import { parseArgs } from 'node:util';
import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import { referenceAgent } from '@taskwire/reference-agent';
import { median } from './http-load.js';
import { fmt } from './pg-stream-sample.js';

const { values: args } = parseArgs({ options: { sends: { type: 'string', default: '20000' }, rounds: { type: 'string', default: '3' }, top: { type: 'string', default: '12' } } });
const SENDS = Number(args.sends);
const CONCURRENCY = 64;

interface ProfileNode {
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly selfSize: number;
  readonly children: readonly ProfileNode[];
}

let sent = 0;
/** `count` blocking echoes, `CONCURRENCY` at a time; each must complete. */
async function drive(service: TaskService, count: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const result = await service.unary('SendMessage', { message: { messageId: `m-${sent++}`, role: 'ROLE_USER', parts: [{ text: `echo hello ${sent}` }] } });
      if (!('task' in result) || result.task.status.state !== 'TASK_STATE_COMPLETED') throw new Error('echo did not complete');
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

/** Self bytes per function (name and file) of a sampling heap profile. */
function selfBytes(node: ProfileNode, into = new Map<string, number>()): Map<string, number> {
  const { functionName, url } = node.callFrame;
  const key = `${functionName || '(anonymous)'} ${url.replace(/^.*\/(packages|node_modules)\//, '')}`;
  into.set(key, (into.get(key) ?? 0) + node.selfSize);
  for (const child of node.children) selfBytes(child, into);
  return into;
}

async function main(): Promise<void> {
  const session = new Session();
  session.connect();
  const perSend: number[] = [];
  let sites = new Map<string, number>();
  for (let round = 1; round <= Number(args.rounds); round++) {
    const store = createMemoryTaskStore({ maxTasks: 10_000 });
    const service = new TaskService({ store, agent: referenceAgent });
    await drive(service, SENDS);
    await service.idle();
    await session.post('HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    await drive(service, SENDS);
    await service.idle();
    const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: ProfileNode } };
    sites = selfBytes(profile.head);
    const total = [...sites.values()].reduce((a, b) => a + b, 0);
    perSend.push(total / SENDS);
    console.log(`round ${round}: ${fmt(total / SENDS)} bytes allocated per send (${fmt(SENDS)} sends, 64 in flight)`);
    await service.close();
    await store.close();
  }
  console.log(`median: ${fmt(median(perSend))} bytes per send\n\nwhere (last round, self bytes per send):`);
  for (const [site, bytes] of [...sites].sort((a, b) => b[1] - a[1]).slice(0, Number(args.top))) console.log(`${fmt(bytes / SENDS).padStart(7)}  ${site}`);
  session.disconnect();
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { Agent } from '../agent/agent.js';
import { TaskService } from '../service/task-service.js';
import { FileTaskStore } from '../store/file-store.js';
import { FilePushConfigStore } from './file-push-store.js';
import { SEQUENCE_HEADER } from './webhook-attempt.js';
import { webhookDelivery } from './webhook-delivery.js';
import type { ReceivedNotification, WebhookReceiver } from './webhook-receiver.js';
import { startWebhookReceiver } from './webhook-receiver.js';
import { pushTestCard } from './webhook-test-rig.js';

// The child runs this package's TypeScript sources through tsx (a root devDependency).
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const source = (file: string) => JSON.stringify(pathToFileURL(fileURLToPath(new URL(file, import.meta.url))).href);

const CARD = pushTestCard('push restart', 'restart test');

/** Six working steps, an artifact, completed: 9 events with the task itself. */
const agent: Agent = async (ctx) => {
  for (let i = 1; i <= 6; i++) await ctx.working(`step ${i}`);
  await ctx.artifact({ name: 'result', text: 'done' });
  await ctx.complete('done');
};

/** A file-store server: `send <url>` starts a task whose notifications go to <url>; `resume` only serves. */
const CHILD = `
import { TaskService } from ${source('../index.ts')};
import { FileTaskStore } from ${source('../file.ts')};
import { FilePushConfigStore, webhookDelivery } from ${source('../push.ts')};
const [dir, mode, url] = process.argv.slice(2);
const card = ${JSON.stringify(CARD)};
const agent = ${agent.toString()};
const tasks = await FileTaskStore.open(dir);
const configs = await FilePushConfigStore.open(tasks);
const delivery = webhookDelivery({ allow: ['127.0.0.1'], timeoutMs: 60_000, retry: { initialDelayMs: 10, maxDelayMs: 50 } });
const service = new TaskService({ store: tasks, agent, card, push: { store: configs, delivery } });
if (mode === 'send') {
  const message = { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'go' }] };
  const authentication = { scheme: 'Bearer', credentials: 'crash-secret' };
  const { task } = await service.unary('SendMessage', { message, configuration: { taskPushNotificationConfig: { url, authentication } } });
  process.stdout.write('task ' + task.id + ' ' + (await tasks.get(task.id)).lastSequence + '\\n');
} else {
  process.stdout.write('ready\\n');
}
setInterval(() => {}, 1 << 30);
`;

const dirs: string[] = [];
const children: ChildProcess[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const close of closers.splice(0).reverse()) await close();
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'taskwire-push-restart-'));
  dirs.push(dir);
  return dir;
}

function startChild(script: string, args: string[]) {
  const child = spawn(process.execPath, ['--import', tsx, script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const lines = createInterface({ input: child.stdout! });
  const firstLine = new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    void exited.then(() => reject(new Error(`the server process ended early: ${stderr}`)));
  });
  return { child, exited, firstLine };
}

const sequenceOf = (n: Pick<ReceivedNotification, 'headers'>) => Number(n.headers[SEQUENCE_HEADER]);
const hasSequence = (receiver: WebhookReceiver, sequence: number, accepted = false) =>
  (accepted ? receiver.accepted() : receiver.received).some((n) => sequenceOf(n) === sequence);

describe('push delivery across restarts of a file-store server', () => {
  it('resumes undelivered notifications after kill -9 mid-delivery: every event arrives once, in order, with its auth header', async () => {
    const dir = await tempDir();
    const script = join(dir, 'server.mjs');
    await writeFile(script, CHILD);
    const storeDir = join(dir, 'store');
    let restarted = false;
    // Before the crash: events 1 and 2 are acknowledged, event 3 never is (the server dies waiting).
    const receiver = await startWebhookReceiver((n) => (restarted || sequenceOf(n) <= 2 ? 200 : 'hang'));
    closers.push(() => receiver.close());

    const first = startChild(script, [storeDir, 'send', `${receiver.url}/hook`]);
    const [line] = await Promise.all([first.firstLine, receiver.waitFor((r) => hasSequence(r, 3))]);
    const [, taskId, last] = line.split(' ');
    expect(Number(last)).toBe(9);
    first.child.kill('SIGKILL');
    await first.exited;
    expect(receiver.accepted().map(sequenceOf)).toEqual([1, 2]);

    restarted = true;
    const second = startChild(script, [storeDir, 'resume']);
    expect(await second.firstLine).toBe('ready');
    await receiver.waitFor((r) => hasSequence(r, 9, true));
    second.child.kill('SIGKILL');
    await second.exited;

    expect(receiver.accepted().map(sequenceOf)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const tasks = await FileTaskStore.open(storeDir);
    closers.push(() => tasks.close());
    expect(receiver.accepted().map((n) => n.body)).toEqual((await tasks.readEvents(taskId!, 0)).map((e) => e.event));
    for (const n of receiver.received) expect(n.headers.authorization).toBe('Bearer crash-secret');
  });

  it('a server stopped mid-delivery leaves the rest in the outbox; the next one sends it', async () => {
    const storeDir = await tempDir();
    let open = false;
    const receiver = await startWebhookReceiver((n) => (open || sequenceOf(n) <= 4 ? 200 : 'hang'));
    closers.push(() => receiver.close());
    const start = async () => {
      const tasks = await FileTaskStore.open(storeDir);
      const configs = await FilePushConfigStore.open(tasks);
      const delivery = webhookDelivery({ allow: ['127.0.0.1'] });
      const service = new TaskService({ store: tasks, agent, card: CARD, push: { store: configs, delivery } });
      const stop = async () => {
        await service.close();
        await configs.close();
        await tasks.close();
      };
      return { tasks, configs, delivery, service, stop };
    };

    const before = await start();
    const result = await before.service.unary('SendMessage', {
      message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'go' }] },
      configuration: { taskPushNotificationConfig: { id: 'hook', url: `${receiver.url}/hook` } },
    });
    const taskId = 'task' in result ? result.task.id : '';
    await receiver.waitFor((r) => hasSequence(r, 5));
    await before.stop();
    expect(receiver.accepted().map(sequenceOf)).toEqual([1, 2, 3, 4]);

    open = true;
    const after = await start();
    closers.push(after.stop);
    expect((await after.configs.get(taskId, 'hook'))?.delivered).toBe(4);
    await receiver.waitFor((r) => hasSequence(r, 9, true));
    await after.delivery.idle();
    expect(receiver.accepted().map(sequenceOf)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect((await after.configs.get(taskId, 'hook'))?.delivered).toBe(9);
  });
});

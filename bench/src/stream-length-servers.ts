/**
 * One server of the stream-length benchmark, in its own process: the
 * reference agent behind serveA2A (JSON-RPC at /a2a/jsonrpc) on
 *
 *   stream-length-servers.ts memory   the memory store
 *   stream-length-servers.ts file     the file store, in a fresh temporary directory (removed on exit)
 *
 * Prints `READY <port>`; exits on SIGTERM / SIGINT.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createMemoryTaskStore, TaskService, type TaskStore } from '@taskwire/core';
import { FileTaskStore } from '@taskwire/core/file';
import { referenceAgent, referenceAgentCard } from '@taskwire/reference-agent';
import { serveA2A } from '@taskwire/server-http';

/** Where the server answers JSON-RPC. */
export const JSON_RPC_PATH = '/a2a/jsonrpc';

async function open(kind: string): Promise<[TaskStore, () => void]> {
  if (kind === 'memory') return [createMemoryTaskStore(), () => undefined];
  if (kind !== 'file') throw new Error('usage: stream-length-servers.ts memory|file');
  const dir = mkdtempSync(join(tmpdir(), 'taskwire-stream-length-'));
  return [await FileTaskStore.open(dir), () => rmSync(dir, { recursive: true, force: true })];
}

async function main(): Promise<void> {
  const [store, remove] = await open(process.argv[2] ?? '');
  const card = referenceAgentCard([{ url: `http://127.0.0.1${JSON_RPC_PATH}`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
  const service = new TaskService({ store, agent: referenceAgent, card });
  const server = await serveA2A({ service, port: 0, host: '127.0.0.1' });
  const shutdown = () =>
    void (async () => {
      await server.close();
      await service.close();
      await store.close();
      remove();
    })().finally(() => process.exit(0));
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  process.stdout.write(`READY ${server.port}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) void main();

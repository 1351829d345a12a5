import { spawnSync } from 'node:child_process';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import type { Message, Task as JsTask } from '@a2a-js/sdk';
import { AGENT_CARD_PATH, Role, Task as JsTaskCodec, TaskState } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { AgentEvent, DefaultRequestHandler } from '@a2a-js/sdk/server';
import { DatabaseTaskStore } from '@a2a-js/sdk/server/database';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { createClient } from '@taskwire/client';
import { TaskService } from '@taskwire/core';
import { createPostgresTaskStore } from '@taskwire/postgres';
import { describePostgres } from '@taskwire/postgres/testing';
import { serveA2A } from '@taskwire/server-http';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { expect, it } from 'vitest';
import { copyA2AJsTasks, fromA2AExecutor } from '../src/index.js';
import { card } from './servers.js';

/** The little of express used here (express ships no types of its own). */
interface ExpressApp {
  use(path: string, handler: unknown): void;
  listen(port: number, host: string, done: () => void): Server;
}
const express = createRequire(import.meta.url)('express') as () => ExpressApp;
const textOf = (m: Message | undefined) => m?.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('') ?? '';
const part = (value: string) => ({ content: { $case: 'text' as const, value }, metadata: undefined, filename: '', mediaType: 'text/plain' });

/** `book` asks which day (input-required); the answer books it (an artifact, then completed). */
class BookingExecutor implements AgentExecutor {
  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = ctx;
    const say = (text: string): Message => ({ messageId: crypto.randomUUID(), taskId, contextId, role: Role.ROLE_AGENT, parts: [part(text)], metadata: undefined, extensions: [], referenceTaskIds: [] });
    const status = (state: TaskState, text: string) => bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: { state, message: say(text), timestamp: new Date().toISOString() }, metadata: undefined }));
    bus.publish(AgentEvent.task(ctx.task ?? { id: taskId, contextId, status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() }, artifacts: [], history: [ctx.userMessage], metadata: { source: 'a2a-js' } }));
    if (!ctx.task) status(TaskState.TASK_STATE_INPUT_REQUIRED, 'Which day?');
    else {
      const day = textOf(ctx.userMessage);
      bus.publish(AgentEvent.artifactUpdate({ taskId, contextId, artifact: { artifactId: 'booking', name: 'booking', description: '', parts: [part(`Booked for ${day}`)], metadata: undefined, extensions: [] }, append: false, lastChunk: true, metadata: undefined }));
      status(TaskState.TASK_STATE_COMPLETED, `booked: ${day}`);
    }
    bus.finished();
  }

  async cancelTask(): Promise<void> {}
}

/** Makes a2a-js's tables with its own `a2a-db` command, in the schema the URL's search_path names. */
function migrateA2AJs(url: string): void {
  const cli = join(dirname(createRequire(import.meta.url).resolve('@a2a-js/sdk')), 'cli', 'a2a_db.js');
  const result = spawnSync(process.execPath, [cli, 'upgrade', '--url', url], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`a2a-db upgrade failed: ${result.stderr}${result.stdout}`);
}

/** A JSON-RPC call to a server, as any client makes it. */
async function call(url: string, method: string, params: unknown): Promise<Record<string, unknown>> {
  const answer = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await answer.json()) as { result?: Record<string, unknown>; error?: unknown };
  if (!body.result) throw new Error(`${method} failed: ${JSON.stringify(body.error)}`);
  return body.result;
}
const send = (url: string, text: string, extra: Record<string, unknown> = {}) =>
  call(url, 'SendMessage', { ...extra, message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...(extra.message as object) } }).then((r) => r.task as { id: string; contextId: string });

describePostgres('tasks @a2a-js/sdk stored on PostgreSQL, copied into @taskwire/postgres', (db) => {
  it('reads back through Taskwire as a2a-js served them, to the same tenant, and goes on there', async () => {
    // a2a-js 1.3.0 on PostgreSQL, as its users run it: its tables made by its a2a-db command, in a database of their own.
    const admin = new pg.Pool({ connectionString: db.url, max: 1 });
    const sourceDatabase = `a2a_js_source_${crypto.randomUUID().slice(0, 8)}`;
    await admin.query(`CREATE DATABASE ${sourceDatabase}`);
    const sourceUrl = Object.assign(new URL(db.url), { pathname: `/${sourceDatabase}` }).toString();
    migrateA2AJs(sourceUrl);
    const sourcePool = new pg.Pool({ connectionString: sourceUrl, max: 2 });
    const kysely = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: sourceUrl, max: 2 }) }) });
    const jsStore = new DatabaseTaskStore(kysely);
    const jsCard = { ...card('Booking'), supportedInterfaces: [] as unknown[], securitySchemes: {}, securityRequirements: [], signatures: [], capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: false, extensions: [] } };
    const handler = new DefaultRequestHandler(jsCard as never, jsStore, new BookingExecutor());
    const app = express();
    app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: handler }));
    app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
    const http = await new Promise<Server>((resolve) => {
      const server = app.listen(0, '127.0.0.1', () => resolve(server));
    });
    const jsUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}/a2a/jsonrpc`;
    jsCard.supportedInterfaces.push({ url: jsUrl, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' });

    // Three tasks a2a-js stores: one booked over two turns, one waiting for its answer, one under a tenant.
    const booked = await send(jsUrl, 'book');
    await send(jsUrl, 'Friday', { message: { taskId: booked.id, contextId: booked.contextId } });
    const waiting = await send(jsUrl, 'book');
    const tenanted = await send(jsUrl, 'book', { tenant: 'acme' });
    const asServed = async (id: string, tenant?: string) => call(jsUrl, 'GetTask', { id, ...(tenant && { tenant }) });
    const before = { booked: await asServed(booked.id), waiting: await asServed(waiting.id), tenanted: await asServed(tenanted.id, 'acme') };
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
    await kysely.destroy();
    expect(before.booked).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED' }, artifacts: [{ artifactId: 'booking' }] });

    // The copy: from a2a-js's table into Taskwire's schema; run again, it copies nothing twice.
    const schema = await db.schema('tw_a2a_js_copy');
    const store = await createPostgresTaskStore({ connectionString: db.url, schema });
    expect(await copyA2AJsTasks(sourcePool, store)).toEqual({ copied: 3, skipped: 0 });
    expect(await copyA2AJsTasks(sourcePool, store)).toEqual({ copied: 0, skipped: 3 });
    await sourcePool.end();

    // Taskwire serves them: GetTask answers what a2a-js answered, the tenant's task only under that tenant.
    const service = new TaskService({ store, agent: fromA2AExecutor(new BookingExecutor()), card: card('Booking') });
    const server = await serveA2A({ service });
    const url = `${server.url}/a2a/jsonrpc`;
    try {
      expect(await call(url, 'GetTask', { id: booked.id })).toEqual(before.booked);
      expect(await call(url, 'GetTask', { id: waiting.id })).toEqual(before.waiting);
      expect(await call(url, 'GetTask', { id: tenanted.id, tenant: 'acme' })).toEqual(before.tenanted);
      await expect(call(url, 'GetTask', { id: tenanted.id })).rejects.toThrow(/-32001/);
      // a2a-js's own codec reads Taskwire's answer as the task it stored.
      expect(JsTaskCodec.fromJSON(await call(url, 'GetTask', { id: booked.id })) satisfies JsTask).toEqual(JsTaskCodec.fromJSON(before.booked));
      // The waiting task goes on on Taskwire, with the same executor.
      const client = await createClient(server.url, { preferred: ['JSONRPC'] });
      const answered = await client.sendMessage({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', taskId: waiting.id, parts: [{ text: 'Monday' }] } });
      expect('task' in answered && answered.task).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED', message: { parts: [{ text: 'booked: Monday' }] } }, artifacts: [{ parts: [{ text: 'Booked for Monday' }] }] });
      await client.close();
    } finally {
      await server.close();
      await service.close();
      await store.close();
      await admin.query(`DROP DATABASE ${sourceDatabase} WITH (FORCE)`);
      await admin.end();
    }
  }, 60_000);
});

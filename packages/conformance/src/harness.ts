import type { A2AError, AgentCard, CallContext, Message, ParamsOf, PushConfigStore, StreamEvent, Task, TaskServiceOptions, TaskStore, Transport } from '@taskwire/core';
import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import { referenceAgent, referenceAgentCard } from '@taskwire/reference-agent';

/**
 * A transport under test: given a service, it serves it on its wire and
 * returns a client transport connected to it. `caller` is who the client
 * authenticates as (transports map it to their auth mechanism).
 */
export interface TransportFixture {
  readonly name: string;
  connect(service: TaskService, caller?: CallerIdentity): Promise<Connection>;
}

/** Who a fixture's client calls as (a principal id; fixtures map it to an API key or header). */
export interface CallerIdentity {
  readonly principalId: string;
}

/**
 * Where the suite's services keep tasks and push configs, when not in
 * memory (the default): `open` makes a fresh, empty pair of stores for one
 * service (a task store, and a push config store beside it for the push
 * requirements); `close` ends both and removes what they used.
 */
export interface SuiteStorage {
  readonly name: string;
  open(): Promise<{ readonly tasks: TaskStore; readonly push: PushConfigStore; close(): Promise<void> }>;
}

/** A live client connection; `close` stops what `connect` started. */
export interface Connection {
  readonly transport: Transport;
  close(): Promise<void>;
  /**
   * Waits until no agent run of this connection's tasks is in progress, for
   * a fixture whose service runs elsewhere (other processes); by default the
   * harness waits for the service it built.
   */
  idle?(): Promise<void>;
}

/** The card every suite service is built with (streaming on, no push, no extended card). */
export const SUITE_CARD: AgentCard = referenceAgentCard([
  { url: 'memory://suite', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
]);

/** A message from the user with a fresh messageId. */
export function userMessage(text: string, extra: Partial<Message> = {}): Message {
  return { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra };
}

/**
 * What a requirement works with: a fresh service (reference agent, memory
 * store) behind the transport under test, and small helpers over it.
 */
export class Harness {
  private readonly others: Harness[] = [];

  private constructor(
    readonly service: TaskService,
    readonly client: Transport,
    private readonly connection: Connection,
    private readonly fixture: TransportFixture,
    private readonly caller: CallerIdentity | undefined,
    private readonly storage: SuiteStorage | undefined,
    private readonly closeStores: () => Promise<void>,
  ) {}

  /**
   * Builds a fresh service and connects the fixture's client to it.
   * `options` replace the suite's service options (store, agent, card), e.g.
   * to add `push`. With `storage`, the service's stores come from it (a
   * `push` option then uses its push config store) and close with it.
   */
  static async open(fixture: TransportFixture, caller?: CallerIdentity, options: Partial<TaskServiceOptions> = {}, storage?: SuiteStorage): Promise<Harness> {
    const stores = await storage?.open();
    const push = stores && options.push ? { push: { ...options.push, store: stores.push } } : {};
    const store = stores?.tasks ?? createMemoryTaskStore({ maxTasks: 100_000 });
    const service = new TaskService({ store, agent: referenceAgent, card: SUITE_CARD, ...options, ...push });
    const closeStores = async () => stores?.close();
    try {
      const connection = await fixture.connect(service, caller);
      return new Harness(service, connection.transport, connection, fixture, caller, storage, closeStores);
    } catch (error) {
      await closeStores();
      throw error;
    }
  }

  /**
   * Another service, built with `options` over the suite's defaults, behind
   * the same transport and caller (for requirements that need a capability
   * the suite service lacks, like push). Closed with this harness.
   */
  async withService(options: Partial<TaskServiceOptions>): Promise<Harness> {
    const other = await Harness.open(this.fixture, this.caller, options, this.storage);
    this.others.push(other);
    return other;
  }

  /** Sends a message and returns the task it answered with. */
  async send(text: string, extra: Partial<Message> = {}, configuration?: ParamsOf<'SendMessage'>['configuration']): Promise<Task> {
    const result = await this.client.unary('SendMessage', { message: userMessage(text, extra), ...(configuration && { configuration }) });
    if (!('task' in result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
    return result.task;
  }

  /** Collects a whole stream. */
  async collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
    const out: StreamEvent[] = [];
    for await (const event of events) out.push(event);
    return out;
  }

  /** Streams a message and collects every event until the stream ends. */
  async stream(text: string, extra: Partial<Message> = {}): Promise<StreamEvent[]> {
    return this.collect(this.client.stream('SendStreamingMessage', { message: userMessage(text, extra) }));
  }

  /** Resolves the A2A error a call failed with; fails when it succeeded. */
  async error(call: Promise<unknown> | (() => Promise<unknown>)): Promise<A2AError> {
    try {
      await (typeof call === 'function' ? call() : call);
    } catch (error) {
      return error as A2AError;
    }
    throw new Error('expected the call to fail, but it succeeded');
  }

  /** Waits until every agent run has ended (server side). */
  idle(): Promise<void> {
    return this.connection.idle?.() ?? this.service.idle();
  }

  /** Stops the connection and the service (and those of {@link withService}). */
  async close(): Promise<void> {
    for (const other of this.others.splice(0)) await other.close();
    await this.connection.close();
    await this.service.close();
    await this.closeStores();
  }
}

/** The in-memory fixture: the service called in-process, through JSON. */
export function inMemoryFixture(makeTransport: (service: TaskService, context: CallContext) => Transport): TransportFixture {
  return {
    name: 'in-memory',
    async connect(service, caller) {
      const transport = makeTransport(service, caller ? { principal: { id: caller.principalId } } : {});
      return { transport, close: async () => {} };
    },
  };
}

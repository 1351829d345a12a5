import pg from 'pg';
import { parseTargets, redactTargets, type ConnectionTargets, type TargetHost } from './target-hosts.js';

/**
 * A connection reached a server that does not take writes (a hot standby,
 * or one set read-only): it is dropped and another host is tried. Its
 * `code` is SQLSTATE 25006 (read_only_sql_transaction), which the store
 * treats as a database to retry, never as a failed task.
 */
export class ReadOnlyServerError extends Error {
  override readonly name = 'ReadOnlyServerError';
  readonly code = '25006';
}

/** No host of a connection string reached a writable server; `code` 08001 (unable to establish a connection): retryable. */
export class NoWritableServerError extends Error {
  override readonly name = 'NoWritableServerError';
  readonly code = '08001';
}

/** What the connections of one connection string share: its hosts, and the one found writable last. */
class TargetState {
  known: TargetHost | undefined;
  finding: Promise<TargetHost> | undefined;
  constructor(readonly targets: ConnectionTargets) {}
}

/** The config key that carries a connection string's {@link TargetState} to every client made from it. */
const STATE_KEY = 'taskwireTargets';

type TargetedConfig = pg.ClientConfig & { [STATE_KEY]?: TargetState; Client?: typeof pg.Client };

/** Whether the server `client` reached takes writes, as `sessionAttrs` means it. */
async function writable(client: pg.Client, sessionAttrs: ConnectionTargets['sessionAttrs']): Promise<boolean> {
  if (sessionAttrs === 'any') return true;
  const { rows } = await client.query<{ recovery: boolean; read_only: string }>(
    "SELECT pg_is_in_recovery() AS recovery, current_setting('transaction_read_only') AS read_only",
  );
  const row = rows[0]!;
  return sessionAttrs === 'primary' ? !row.recovery : row.read_only === 'off' && !row.recovery;
}

/** The first host (in the string's order) that opens a connection to a writable server, each tried with a throwaway connection. */
async function findWritable(state: TargetState, config: TargetedConfig): Promise<TargetHost> {
  const failures: string[] = [];
  for (const target of state.targets.hosts) {
    const { [STATE_KEY]: _state, Client: _client, ...plain } = config;
    const probe = new pg.Client({ ...plain, connectionString: target.url });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      if (await writable(probe, state.targets.sessionAttrs)) return target;
      failures.push(`${target.host}:${target.port} takes no writes`);
    } catch (error) {
      failures.push(`${target.host}:${target.port}: ${(error as Error).message}`);
    } finally {
      await probe.end().catch(() => undefined);
    }
  }
  throw new NoWritableServerError(`No host of the connection string reached a writable PostgreSQL server (${failures.join('; ')})`);
}

/** Points a client that has not connected yet at `target`. */
function aim(client: pg.Client, target: TargetHost): void {
  const internals = client as unknown as { host: string; port: number; connectionParameters: { host: string; port: number } };
  internals.host = internals.connectionParameters.host = target.host;
  internals.port = internals.connectionParameters.port = target.port;
}

/** Ends a client's socket at once. */
function drop(client: pg.Client): void {
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}

/**
 * Connects `client` to the writable host of its connection string: the
 * one found last, else the first that answers writable. A host that fails
 * or reached a server that takes no writes is forgotten (the next
 * connection looks again) and the connect fails with a retryable error.
 */
async function connectTarget(client: pg.Client, state: TargetState, config: TargetedConfig, connect: () => Promise<unknown>): Promise<void> {
  let target = state.known;
  if (target === undefined) {
    state.finding ??= findWritable(state, config).finally(() => (state.finding = undefined));
    target = await state.finding;
  }
  const stream = (client as unknown as { connection?: { stream?: { destroyed?: boolean } } }).connection?.stream;
  if (stream?.destroyed === true) throw new Error('Connection terminated due to connection timeout');
  aim(client, target);
  const forget = () => {
    if (state.known === target) state.known = undefined;
  };
  try {
    await connect();
    if (!(await writable(client, state.targets.sessionAttrs))) {
      throw new ReadOnlyServerError(`The PostgreSQL server at ${target.host}:${target.port} takes no writes (a standby, or read-only): the connection is dropped and another host is tried`);
    }
  } catch (error) {
    forget();
    drop(client);
    throw error;
  }
  state.known = target;
}

const targetingClasses = new WeakMap<typeof pg.Client, typeof pg.Client>();
/** The settings each targeting client was made with (its probes use them). */
const clientConfigs = new WeakMap<pg.Client, TargetedConfig>();

/**
 * The client class of a connection string with several hosts or
 * `target_session_attrs`: a subclass of `Base` whose `connect` picks the
 * writable host and checks, once connected, that the server takes writes
 * (see {@link targetConfig}). One class per base.
 */
function targetingClient(Base: typeof pg.Client): typeof pg.Client {
  const known = targetingClasses.get(Base);
  if (known !== undefined) return known;
  class TargetingClient extends Base {
    constructor(options?: TargetedConfig) {
      super(options);
      clientConfigs.set(this, options ?? {});
      // A failover ends connections with a server's FATAL at any moment, also on a client checked out between two
      // statements: never a crash (its next statement fails as "not queryable", a retryable error).
      this.on('error', () => undefined);
    }
  }
  const baseConnect = Base.prototype.connect as (this: pg.Client) => Promise<unknown>;
  (TargetingClient.prototype as unknown as { connect: unknown }).connect = function (this: pg.Client, callback?: (error: Error | undefined) => void) {
    const options = clientConfigs.get(this)!;
    const promise = connectTarget(this, options[STATE_KEY]!, options, () => baseConnect.call(this));
    if (callback === undefined) return promise;
    promise.then(() => callback(undefined), (error: Error) => callback(error));
    return undefined;
  };
  targetingClasses.set(Base, TargetingClient);
  return TargetingClient;
}

/**
 * The node-postgres settings that reach `url`: `{ connectionString: url }`
 * for a string node-postgres reads itself; for one with several hosts or
 * `target_session_attrs` (see {@link parseTargets}), the first host's URL,
 * a client class (a subclass of `Base`) that connects to the writable host
 * and checks it after every (re)connect, and the state its connections
 * share. Throws a TypeError for a `target_session_attrs` the store cannot
 * use.
 */
export function targetConfig(url: string, Base: typeof pg.Client = pg.Client): TargetedConfig {
  const targets = parseTargets(url);
  if (targets === undefined) return Base === pg.Client ? { connectionString: url } : { connectionString: url, Client: Base };
  return { connectionString: targets.hosts[0]!.url, Client: targetingClient(Base), [STATE_KEY]: new TargetState(targets) };
}

/** A new client for `config` (a pool's options, or {@link targetConfig}'s): of its `Client` class when it names one. */
export function newClient(config: TargetedConfig): pg.Client {
  const Client = config.Client ?? pg.Client;
  return new Client(config);
}

export { redactTargets };

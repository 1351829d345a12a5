import type { StreamResponse, TaskPushNotificationConfig } from '../schema/index.js';
import type { TaskStore } from '../store/task-store.js';

/** A push notification config as stored: it always has its `id` and `taskId`. */
export type PushConfig = TaskPushNotificationConfig & { readonly id: string; readonly taskId: string };

/**
 * One stored config with its scope and its place in the task's event log.
 * `delivered` is the outbox cursor: every task event with a sequence number
 * up to it is settled for this config (acknowledged by the webhook or
 * dead-lettered); the events after it are still to be sent. The events
 * themselves stay in the task store's log, so the outbox holds positions,
 * not copies.
 */
export interface StoredPushConfig {
  /** The owner key (tenant and principal) of the task, as the task store has it. */
  readonly owner: string;
  readonly config: PushConfig;
  readonly delivered: number;
}

/** A notification given up on: the attempts were used up, the failure was permanent, or the event was gone. */
export interface PushDeadLetter {
  readonly taskId: string;
  readonly configId: string;
  readonly url: string;
  /** Sequence number of the task event that was not delivered (the first one, for a range). */
  readonly sequence: number;
  /** For a range of events the task store had dropped before they could be sent: the last one. */
  readonly throughSequence?: number;
  /** The notification body (a StreamResponse); absent when the task store no longer had the event. */
  readonly event?: StreamResponse;
  /** Delivery attempts made (0 when the event was gone or the URL was refused before sending). */
  readonly attempts: number;
  /** Why the last attempt failed. */
  readonly error: string;
  /** When it was given up on (ISO 8601). */
  readonly at: string;
}

/** A {@link PushConfigStore.listDeadLetters} query: oldest first. */
export interface DeadLetterQuery {
  readonly taskId?: string;
  /** At most this many (the newest ones are kept when there are more). */
  readonly limit?: number;
}

/**
 * Which dead letters {@link PushConfigStore.removeDeadLetters} removes and
 * `redeliver` re-sends: those matching every given field (`{}` matches them
 * all). A plain object, so that a durable store can log it and replay it.
 */
export interface DeadLetterMatch {
  readonly taskId?: string;
  readonly configId?: string;
  /** The letter's `sequence` (the first event of a range). */
  readonly sequence?: number;
  /** Given up on strictly before this instant (ISO 8601; an unparsable value is a RangeError). */
  readonly before?: string;
}

/**
 * Where push notification configs and their delivery state live: the
 * configs of each task, each config's outbox cursor and the dead letters.
 * Keep it in the task store's medium (memory with a memory task store, the
 * task store's directory with a file store) so that undelivered
 * notifications survive exactly as long as the events they point to.
 * Every adapter passes `runPushConfigStoreConformance` from
 * `@taskwire/core/testing`.
 *
 * Contract:
 * - `put` creates the config `(taskId, config.id)` or replaces it. A
 *   replace keeps the larger of the old and the new `delivered` (a cursor
 *   never moves back). It resolves once durable for the adapter.
 * - `list` returns a task's configs ordered by id; `all` every config.
 * - `advance` moves a config's cursor forward (never back); it does nothing
 *   for a config that no longer exists.
 * - `deadLetter` records a dead letter and, in the same write, advances the
 *   config's cursor to `throughSequence ?? sequence`.
 * - `removeDeadLetters` removes every dead letter matching, durably for the
 *   adapter, and resolves how many it removed; cursors do not move.
 * - Values returned are copies: changing them changes nothing stored.
 * - After `close`, every call rejects.
 */
export interface PushConfigStore {
  put(entry: StoredPushConfig): Promise<StoredPushConfig>;
  get(taskId: string, configId: string): Promise<StoredPushConfig | undefined>;
  list(taskId: string): Promise<StoredPushConfig[]>;
  /** Removes one config; resolves true when it existed. */
  delete(taskId: string, configId: string): Promise<boolean>;
  /** Removes every config of a task; resolves how many there were. */
  deleteTask(taskId: string): Promise<number>;
  all(): Promise<StoredPushConfig[]>;
  advance(taskId: string, configId: string, sequence: number): Promise<void>;
  deadLetter(letter: PushDeadLetter): Promise<void>;
  listDeadLetters(query?: DeadLetterQuery): Promise<PushDeadLetter[]>;
  /** Removes the dead letters matching `match`; resolves how many were removed. Rejects with a RangeError when `match.before` is not a date. */
  removeDeadLetters(match: DeadLetterMatch): Promise<number>;
  /**
   * Optional, for a store several processes share (each with its own
   * delivery): takes, or renews, the right to deliver the events of the
   * config `(taskId, configId)` for `holder` during `ttlMs`. Resolves false
   * (changing nothing) while another holder's claim lasts, or when the
   * config does not exist. A claim outlives its holder only until it
   * expires: then another process takes over from the cursor.
   */
  claim?(taskId: string, configId: string, holder: string, ttlMs: number): Promise<boolean>;
  /**
   * Optional, with `claim`: renews, in one call, every claim of `holder` on
   * `claims` for `ttlMs` more; resolves those it no longer holds (another
   * holder took them, or the config is gone). A delivery prefers it to one
   * `claim` per config.
   */
  renewClaims?(holder: string, claims: readonly { readonly taskId: string; readonly configId: string }[], ttlMs: number): Promise<{ readonly taskId: string; readonly configId: string }[]>;
  /**
   * Optional, with `claim`: gives up `holder`'s claim on the config (another
   * holder's stays). When events after the config's cursor are still owed,
   * the claim is handed over instead (it expires now), so that another
   * process's sweep of `expiredClaims` delivers them.
   */
  release?(taskId: string, configId: string, holder: string): Promise<void>;
  /**
   * Optional: the keys of the stored configs (of `taskId`'s, or of every
   * task), without opening their secrets. A delivery schedules its work
   * from these when the store has them, so a config whose secrets do not
   * open (sealed with a lost key, or its URL or owner changed where it is
   * stored) stops only its own delivery, refused when it is read, never the
   * scheduling of the others.
   */
  keys?(taskId?: string): Promise<{ readonly taskId: string; readonly configId: string }[]>;
  /** Optional, with `claim`: the configs whose claim expired while held (their holder stopped in the middle of a delivery, or handed them over). */
  expiredClaims?(): Promise<{ readonly taskId: string; readonly configId: string }[]>;
  close(): Promise<void>;
}

/** What a {@link PushDelivery} reads from: the service's task store and push config store. */
export interface PushSource {
  readonly tasks: TaskStore;
  readonly configs: PushConfigStore;
}

/**
 * What sends the notifications (node: `webhookDelivery()` from
 * `@taskwire/core/push`). The service binds it to its stores once, tells it
 * about every commit and asks it to check webhook URLs before a config is
 * accepted.
 */
export interface PushDelivery {
  /** Throws (any Error, with a message saying why) when the delivery would refuse to call `url`. */
  checkUrl(url: string): Promise<void>;
  /** Binds the delivery to a service's stores and resumes undelivered notifications. Called once. */
  start(source: PushSource): void;
  /** Events were committed for `taskId`, or one of its configs was created: send what is pending. Must not throw. */
  notify(taskId: string): void;
  /** Stops sending (what is not acknowledged stays in the outbox). */
  close(): Promise<void>;
  /**
   * Optional (`webhookDelivery()` has it): sends the matching dead letters
   * again, with the delivery's usual retries and checks; a letter whose
   * events were all acknowledged is removed, any other stays as it was.
   */
  redeliver?(match?: DeadLetterMatch): Promise<RedeliverySummary>;
}

/** Why `redeliver` did not try a dead letter: its config was deleted, its task is gone, or the task store no longer has its events. */
export type RedeliverySkipReason = 'config-deleted' | 'task-gone' | 'events-gone';

/** What a `redeliver` call did with each matching dead letter (each list oldest first). */
export interface RedeliverySummary {
  /** Acknowledged with a 2xx, and removed from the dead letters. */
  readonly delivered: readonly PushDeadLetter[];
  /** Given up on again (the letter stays as it was): the attempts made this time and why the last failed. */
  readonly failed: readonly { readonly letter: PushDeadLetter; readonly attempts: number; readonly error: string }[];
  /** Not sent (the letter stays: remove it with `removeDeadLetters`). */
  readonly skipped: readonly { readonly letter: PushDeadLetter; readonly reason: RedeliverySkipReason }[];
}

/** The `push` option of a TaskService: where configs live and what sends them. */
export interface PushOptions {
  readonly store: PushConfigStore;
  /** Without one, configs are stored and served but nothing is sent (another process may deliver them). */
  readonly delivery?: PushDelivery;
  /**
   * When true, GetTaskPushNotificationConfig and
   * ListTaskPushNotificationConfigs answer without the configs' secrets:
   * no `token`, and `authentication` with its `scheme` but no
   * `credentials`. What is stored and sent to the webhook is unchanged;
   * Create still echoes the config it was given. Default: on for calls
   * that negotiated A2A 1.1 (`A2A-Version: 1.1`, with the service's
   * `protocol.v1_1`), off for the others; `false` turns it off for 1.1 too.
   */
  readonly redactSecrets?: boolean;
}

import { join, resolve } from 'node:path';
import { LogWriter } from '../store/file/log-writer.js';
import type { StoreLogger } from '../store/file/open-log.js';
import { openLog } from '../store/file/open-log.js';
import { compactPushLog, PUSH_LOG, pushFrame, pushLogKind, applyPushRecord, type PushRecord } from './file-push-log.js';
import type { DeadLetterMatch, DeadLetterQuery, PushConfigStore, PushDeadLetter, StoredPushConfig } from './push-config-store.js';
import { deadLetterFilter, DEFAULT_MAX_DEAD_LETTERS, PushState, PushStoreClosedError } from './push-state.js';
import { refuseUnsealedFileSecrets, sealFilePushSecretsOnce, type FileSealingTarget } from './file-push-sealing.js';
import { openPushSecrets, pushSecretBox, type PushEncryptionOptions, type PushSecretBox } from './push-secrets.js';

/** Options of {@link FilePushConfigStore.open}. */
export interface FilePushConfigStoreOptions {
  /** fsync every write batch (default true). `false` is for benchmarks only: a crash may lose acknowledged writes. */
  readonly fsync?: boolean;
  /** Dead letters kept, newest first (default 1,000). */
  readonly maxDeadLetters?: number;
  /** The log is compacted once it is at least this big (default 1 MiB) and twice its size after the last compaction. */
  readonly compactMinBytes?: number;
  /** Told about repairs (a truncated torn tail) and failed compactions. */
  readonly logger?: StoreLogger;
  /**
   * Encrypts each config's secrets (`authentication`, `token`) in the log
   * with AES-256-GCM (see {@link PushEncryptionOptions}). Without it they
   * are stored as given (the file is readable by its owner only). The first
   * open with it seals, once, the secrets stored before encryption was
   * turned on or sealed by an earlier release, and records that step in
   * the file `push-secrets-sealed` beside the log; after it, such a secret
   * (a line written back from a backup) is refused when read: nothing is
   * sent with it.
   */
  readonly encryption?: PushEncryptionOptions;
}

/** Directories with an open push store in this process. */
const openDirectories = new Set<string>();

/**
 * A durable {@link PushConfigStore}: the file `push.log` in the directory of
 * a FileTaskStore (node only: import it from `@taskwire/core/push`). Configs,
 * outbox cursors and dead letters are appended as checksummed records, the
 * task log's framing, and each write resolves once synced (concurrent writes
 * share one fsync). After a crash the log is replayed and a torn tail
 * dropped, so every acknowledged config and cursor survives: the delivery
 * resumes from the cursors, against the task events the task store kept.
 * The log is compacted when it has doubled. The task store's lock covers
 * the directory: open this store after the task store, close it before.
 */
export class FilePushConfigStore implements PushConfigStore {
  private closed = false;
  private closing: Promise<void> | undefined;
  private compaction: Promise<void> | undefined;
  private nextCompactionAt: number;
  private readonly box: PushSecretBox | undefined;

  private constructor(
    /** The push log's path. */
    readonly path: string,
    private readonly directory: string,
    private readonly options: FilePushConfigStoreOptions,
    private readonly state: PushState,
    private readonly writer: LogWriter,
  ) {
    this.nextCompactionAt = this.threshold(writer.size);
    this.box = pushSecretBox(options.encryption);
  }

  /**
   * Opens the push store in `taskStore.directory` (pass the open
   * FileTaskStore): replays `push.log`, truncating a torn tail. Rejects
   * when a push store is already open on that directory in this process.
   */
  static async open(taskStore: { readonly directory: string }, options: FilePushConfigStoreOptions = {}): Promise<FilePushConfigStore> {
    const directory = resolve(taskStore.directory);
    if (openDirectories.has(directory)) {
      throw new Error(`A push config store is already open on ${directory} in this process: close it first, or share that one`);
    }
    // A bad key is refused before anything is opened.
    pushSecretBox(options.encryption);
    openDirectories.add(directory);
    try {
      const state = new PushState(options.maxDeadLetters ?? DEFAULT_MAX_DEAD_LETTERS);
      const path = join(directory, PUSH_LOG);
      const fsync = options.fsync ?? true;
      const { handle, size } = await openLog(directory, path, pushLogKind(state), fsync, options.logger);
      const store = new FilePushConfigStore(path, directory, options, state, new LogWriter(handle, size, fsync, path));
      if (store.box) await sealFilePushSecretsOnce(store.sealingTarget(fsync), store.box).catch(async (error: unknown) => (await store.close(), Promise.reject(error)));
      return store;
    } catch (error) {
      openDirectories.delete(directory);
      throw error;
    }
  }

  /** The store as the one-time sealing step sees it (see `sealFilePushSecretsOnce`). */
  private sealingTarget(fsync: boolean): FileSealingTarget {
    return {
      directory: this.directory,
      fsync,
      entries: () => this.state.all(),
      write: async (entry: StoredPushConfig) => void (await this.write({ t: 'p', e: entry })),
      compact: () => this.compact(),
    };
  }

  async put(entry: StoredPushConfig): Promise<StoredPushConfig> {
    const stored = structuredClone(entry);
    return this.reveal((await this.write({ t: 'p', e: this.box?.seal(stored) ?? stored })) as StoredPushConfig);
  }

  async get(taskId: string, configId: string): Promise<StoredPushConfig | undefined> {
    this.check();
    const entry = this.state.get(taskId, configId);
    return entry && this.reveal(entry);
  }

  async list(taskId: string): Promise<StoredPushConfig[]> {
    this.check();
    return this.state.list(taskId).map((entry) => this.reveal(entry));
  }

  async delete(taskId: string, configId: string): Promise<boolean> {
    this.check();
    if (!this.state.get(taskId, configId)) return false;
    await this.write({ t: 'd', task: taskId, id: configId });
    return true;
  }

  async deleteTask(taskId: string): Promise<number> {
    this.check();
    const count = this.state.list(taskId).length;
    if (count > 0) await this.write({ t: 'r', task: taskId });
    return count;
  }

  /** The configs' keys, secrets left sealed (see `PushConfigStore.keys`). */
  async keys(taskId?: string): Promise<{ taskId: string; configId: string }[]> {
    this.check();
    return this.state.keys(taskId);
  }

  async all(): Promise<StoredPushConfig[]> {
    this.check();
    return this.state.all().map((entry) => this.reveal(entry));
  }

  async advance(taskId: string, configId: string, sequence: number): Promise<void> {
    this.check();
    const entry = this.state.get(taskId, configId);
    if (entry && sequence > entry.delivered) await this.write({ t: 'a', task: taskId, id: configId, s: sequence });
  }

  async deadLetter(letter: PushDeadLetter): Promise<void> {
    await this.write({ t: 'x', l: structuredClone(letter) });
  }

  async listDeadLetters(query?: DeadLetterQuery): Promise<PushDeadLetter[]> {
    this.check();
    return structuredClone(this.state.listDeadLetters(query));
  }

  /** Logs the removal (a `k` record) only when a letter matches now; resolves how many the logged removal took out. */
  async removeDeadLetters(match: DeadLetterMatch): Promise<number> {
    this.check();
    const { taskId, configId, sequence, before } = match;
    if (!this.state.letters.some(deadLetterFilter(match))) return 0;
    return (await this.write({ t: 'k', m: { taskId, configId, sequence, before } })) as number;
  }

  /** Compacts the log now (after a compaction under way); rejects if it fails. */
  async compact(): Promise<void> {
    this.check();
    while (this.compaction) await this.compaction;
    await this.startCompaction();
  }

  /** The log's size in bytes. */
  get logBytes(): number {
    return this.writer.size;
  }

  /** Waits for queued writes, closes the log. Idempotent. */
  close(): Promise<void> {
    this.closed = true;
    this.closing ??= (async () => {
      await this.compaction;
      await this.writer.close();
      openDirectories.delete(this.directory);
    })();
    return this.closing;
  }

  private check(): void {
    if (this.closed) throw new PushStoreClosedError();
  }

  /** A copy of a stored entry with its secrets opened; with encryption, secrets nobody sealed since the step are refused. */
  private reveal(entry: StoredPushConfig): StoredPushConfig {
    if (this.box) refuseUnsealedFileSecrets(entry, this.directory);
    return structuredClone(openPushSecrets(entry, this.box));
  }

  /** Appends a record; applies it to the state once durable and resolves with what applying it returned. */
  private async write(record: PushRecord): Promise<StoredPushConfig | number | undefined> {
    this.check();
    if (this.writer.failed) throw this.writer.failed;
    let stored: StoredPushConfig | number | undefined;
    await this.writer.append(pushFrame(record), () => {
      stored = applyPushRecord(this.state, record);
    });
    if (this.writer.size >= this.nextCompactionAt && !this.compaction && !this.closed) {
      this.startCompaction().catch((error: unknown) =>
        this.options.logger?.warn({
          path: this.path,
          error: error instanceof Error ? error.message : String(error),
        }, 'Taskwire push store: compaction failed; the log keeps growing and compaction is retried later'),
      );
    }
    return stored;
  }

  private startCompaction(): Promise<void> {
    const run = compactPushLog(this.directory, this.path, this.writer, this.state, this.options.fsync ?? true).then(
      (size) => {
        this.nextCompactionAt = this.threshold(size);
      },
      (error: unknown) => {
        this.nextCompactionAt = this.threshold(this.writer.size);
        throw error;
      },
    );
    this.compaction = run.finally(() => (this.compaction = undefined)).catch(() => undefined);
    return run;
  }

  private threshold(size: number): number {
    return Math.max(this.options.compactMinBytes ?? 1024 * 1024, 2 * size);
  }
}

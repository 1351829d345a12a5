import type { DeadLetterMatch, DeadLetterQuery, PushConfigStore, PushDeadLetter, StoredPushConfig } from './push-config-store.js';
import { DEFAULT_MAX_DEAD_LETTERS, PushState, PushStoreClosedError } from './push-state.js';

/** Options of {@link MemoryPushConfigStore}. */
export interface MemoryPushConfigStoreOptions {
  /** Dead letters kept, newest first (default 1,000; older ones are dropped). */
  readonly maxDeadLetters?: number;
}

/**
 * A {@link PushConfigStore} in process memory, for a memory task store:
 * nothing survives the process (and neither do the events its outbox points
 * to). Values are copied with `structuredClone` on the way in and out.
 * Configs stay until deleted or until their task is found gone. `close` is
 * idempotent; every other call after it rejects with {@link PushStoreClosedError}.
 */
export class MemoryPushConfigStore implements PushConfigStore {
  private readonly state: PushState;
  private closed = false;

  constructor(options: MemoryPushConfigStoreOptions = {}) {
    this.state = new PushState(options.maxDeadLetters ?? DEFAULT_MAX_DEAD_LETTERS);
  }

  async put(entry: StoredPushConfig): Promise<StoredPushConfig> {
    this.check();
    return structuredClone(this.state.put(structuredClone(entry)));
  }

  async get(taskId: string, configId: string): Promise<StoredPushConfig | undefined> {
    this.check();
    const entry = this.state.get(taskId, configId);
    return entry && structuredClone(entry);
  }

  async list(taskId: string): Promise<StoredPushConfig[]> {
    this.check();
    return structuredClone(this.state.list(taskId));
  }

  async delete(taskId: string, configId: string): Promise<boolean> {
    this.check();
    return this.state.delete(taskId, configId);
  }

  async deleteTask(taskId: string): Promise<number> {
    this.check();
    return this.state.deleteTask(taskId);
  }

  /** The configs' keys, secrets left sealed (see `PushConfigStore.keys`). */
  async keys(taskId?: string): Promise<{ taskId: string; configId: string }[]> {
    this.check();
    return this.state.keys(taskId);
  }

  async all(): Promise<StoredPushConfig[]> {
    this.check();
    return structuredClone(this.state.all());
  }

  async advance(taskId: string, configId: string, sequence: number): Promise<void> {
    this.check();
    this.state.advance(taskId, configId, sequence);
  }

  async deadLetter(letter: PushDeadLetter): Promise<void> {
    this.check();
    this.state.deadLetter(structuredClone(letter));
  }

  async listDeadLetters(query?: DeadLetterQuery): Promise<PushDeadLetter[]> {
    this.check();
    return structuredClone(this.state.listDeadLetters(query));
  }

  async removeDeadLetters(match: DeadLetterMatch): Promise<number> {
    this.check();
    return this.state.removeDeadLetters(match);
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private check(): void {
    if (this.closed) throw new PushStoreClosedError();
  }
}

/** A new {@link MemoryPushConfigStore}. */
export function createMemoryPushConfigStore(options?: MemoryPushConfigStoreOptions): MemoryPushConfigStore {
  return new MemoryPushConfigStore(options);
}

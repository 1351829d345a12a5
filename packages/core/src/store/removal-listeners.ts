/**
 * The listeners of a store's {@link TaskStore.onRemoved}: `add` registers
 * one (returning its remover), `emit` calls each with a removed task's id.
 */
export class RemovalListeners {
  private readonly listeners = new Set<(taskId: string) => void>();

  /** Registers `listener`; the returned function removes it. */
  add(listener: (taskId: string) => void): () => void {
    const own = (taskId: string): void => listener(taskId);
    this.listeners.add(own);
    return () => void this.listeners.delete(own);
  }

  /** Tells every listener that `taskId` is gone. */
  emit(taskId: string): void {
    for (const listener of this.listeners) listener(taskId);
  }
}

/**
 * At most `limit` holders at a time; `acquire` waits for a free slot.
 * `open()` lets every waiter (and every later caller) through at once, for
 * shutdown: callers then check their own stop condition.
 */
export class ConcurrencyLimit {
  private held = 0;
  private opened = false;
  private readonly waiters: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  /** Resolves once a slot is held; pair it with {@link release}. */
  async acquire(): Promise<void> {
    while (this.held >= this.limit && !this.opened) await new Promise<void>((resolve) => this.waiters.push(resolve));
    this.held++;
  }

  /** Frees a slot and wakes one waiter. */
  release(): void {
    this.held--;
    this.waiters.shift()?.();
  }

  /** Wakes every waiter and stops limiting. */
  open(): void {
    this.opened = true;
    for (const wake of this.waiters.splice(0)) wake();
  }
}

import type { AgentExecutionEvent, EventListener, ExecutionEventBus, ExecutionEventName, FinishedListener } from '@a2a-js/sdk/server';

/**
 * The event bus an executor publishes to: a2a-js's `ExecutionEventBus`
 * contract (`publish`, `finished`, and `on`/`off`/`once`/`removeAllListeners`
 * for both event names), without Node's EventEmitter or EventTarget, so it
 * runs in any runtime. Listeners are called synchronously, in the order they
 * were added; after `finished()` published events are ignored.
 */
export class AdapterEventBus implements ExecutionEventBus {
  /** Made when the first listener is added (an executor that only publishes costs none). */
  private listeners: { readonly event: EventListener[]; readonly finished: FinishedListener[] } | undefined = undefined;
  private done = false;

  /** `sink`, when given, gets every event and `finished()` before the listeners do. */
  constructor(private readonly sink?: { event(event: AgentExecutionEvent): void; finished(): void }) {}

  /** True once `finished()` was called. */
  get isFinished(): boolean {
    return this.done;
  }

  publish(event: AgentExecutionEvent): void {
    if (this.done) return;
    this.sink?.event(event);
    const listeners = this.listeners?.event;
    if (listeners !== undefined && listeners.length > 0) for (const listener of [...listeners]) listener(event);
  }

  finished(): void {
    if (this.done) return;
    this.done = true;
    this.sink?.finished();
    const listeners = this.listeners?.finished;
    if (listeners !== undefined && listeners.length > 0) for (const listener of [...listeners]) listener();
  }

  on(eventName: 'event', listener: EventListener): this;
  on(eventName: 'finished', listener: FinishedListener): this;
  on(eventName: ExecutionEventName, listener: EventListener | FinishedListener): this {
    this.listeners ??= { event: [], finished: [] };
    (this.listeners[eventName] as Array<typeof listener>).push(listener);
    return this;
  }

  off(eventName: 'event', listener: EventListener): this;
  off(eventName: 'finished', listener: FinishedListener): this;
  off(eventName: ExecutionEventName, listener: EventListener | FinishedListener): this {
    const list = this.listeners?.[eventName] as Array<typeof listener> | undefined;
    const at = list === undefined ? -1 : list.indexOf(listener);
    if (at >= 0) list?.splice(at, 1);
    return this;
  }

  once(eventName: 'event', listener: EventListener): this;
  once(eventName: 'finished', listener: FinishedListener): this;
  once(eventName: ExecutionEventName, listener: EventListener | FinishedListener): this {
    const wrapped = ((...args: [AgentExecutionEvent]) => {
      this.off(eventName as 'event', wrapped as EventListener);
      (listener as (...a: unknown[]) => void)(...args);
    }) as EventListener;
    return this.on(eventName as 'event', wrapped);
  }

  removeAllListeners(eventName?: ExecutionEventName): this {
    const listeners = this.listeners;
    if (listeners === undefined) return this;
    if (eventName === undefined || eventName === 'event') listeners.event.length = 0;
    if (eventName === undefined || eventName === 'finished') listeners.finished.length = 0;
    return this;
  }
}

import type { Agent } from '../agent/agent.js';
import { invalidParams } from '../errors.js';
import type { MethodName, ParsedParamsOf, ResultOf, StreamMethodName, UnaryMethodName } from '../methods.js';
import { METHODS } from '../methods.js';
import type { PushOptions } from '../push/push-config-store.js';
import type { AgentCard } from '../schema/index.js';
import type { TaskStore } from '../store/task-store.js';
import type { Logger } from './agent-run.js';
import type { CallContext } from './call-context.js';
import type { StreamEvent } from './task-stream.js';

/** How a {@link TaskService} is built. */
export interface TaskServiceOptions {
  readonly store: TaskStore;
  readonly agent: Agent;
  /** The public card; its capabilities gate streaming, push and the extended card. */
  readonly card?: AgentCard;
  /** The card served by GetExtendedAgentCard (needs `capabilities.extendedAgentCard`). */
  readonly extendedCard?: AgentCard | ((context: CallContext) => AgentCard | Promise<AgentCard>);
  /** History returned when a request leaves historyLength unset; default: all of it. */
  readonly defaultHistoryLength?: number;
  /**
   * What a message naming an unknown taskId does: `reject` (the v1.0 rule,
   * TaskNotFound) or `create` a task with that id (for v0.3 clients that
   * pick task ids themselves). Default `reject`; a call can ask for
   * `create` with `CallContext.clientTaskIds`.
   */
  readonly unknownTaskId?: 'reject' | 'create';
  /**
   * Push notifications: where configs live and what sends them. The four
   * push-config methods (and a config in SendMessage) work only with this
   * set and, when there is a card, `capabilities.pushNotifications: true`;
   * otherwise they answer PushNotificationNotSupported.
   */
  readonly push?: PushOptions;
  readonly logger?: Logger;
  /** Makes task, context and message ids (default: random version 4 UUIDs). */
  readonly newId?: () => string;
  /** The clock for status timestamps (default: the system clock). */
  readonly now?: () => Date;
}

/** Every operation of the method table as a service method: unary ones resolve, stream ones open a stream. */
export type A2AHandlers = {
  [M in UnaryMethodName]: (params: ParsedParamsOf<M>, context: CallContext) => Promise<ResultOf<M>>;
} & {
  [M in StreamMethodName]: (params: ParsedParamsOf<M>, context: CallContext) => Promise<AsyncIterable<StreamEvent>>;
};

/** Validates raw params against the method table; throws InvalidParams naming each bad field. */
export function parseParams<M extends MethodName>(method: M, params: unknown): ParsedParamsOf<M> {
  const result = METHODS[method].params.safeParse(params ?? {});
  if (!result.success) throw invalidParams(result.error);
  return result.data as ParsedParamsOf<M>;
}

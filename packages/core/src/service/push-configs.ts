import * as z from 'zod';
import { A2AError, invalidParams } from '../errors.js';
import type { ParsedParamsOf, ResultOf } from '../methods.js';
import type { AgentCard, SendMessageRequest, TaskPushNotificationConfig } from '../schema/index.js';
import type { CallContext } from '../calls.js';
import type { Logger } from '../observability/logger.js';
import type { EventHub } from './event-hub.js';
import { speaksNext } from './generation.js';
import { decodePageToken, encodePageToken } from '../store/list-tasks.js';
import type { TaskRecord, TaskStore } from '../store/task-store.js';
import type { PushConfig, PushConfigStore, PushDelivery, PushOptions } from '../push/push-config-store.js';

/** What {@link PushConfigMethods} needs from its service. */
export interface PushConfigHost {
  readonly tasks: TaskStore;
  /** Where commits are published: the delivery is told about each one. */
  readonly hub: EventHub;
  readonly newId: () => string;
  /** The task if the caller may see it, else throws TaskNotFound. */
  visible(taskId: string, context: CallContext, tenant: string | undefined): Promise<TaskRecord>;
  /** Told when the configs of a removed task could not be deleted. */
  readonly logger?: Logger | undefined;
}

/** The two conditions of push support: the card's capability (when there is a card) and a configured store. */
export function pushSupported(card: AgentCard | undefined, push: PushOptions | undefined): push is PushOptions {
  return push !== undefined && (card === undefined || card.capabilities.pushNotifications === true);
}

/** PushNotificationNotSupported, saying what to configure. */
export function pushNotSupported(): A2AError {
  return new A2AError('PushNotificationNotSupported', 'This agent does not support push notifications');
}

/** A config that arrived with a message, checked and waiting for its task. */
export interface PendingPushConfig {
  /** Stores the config for `taskId`, sending the events after `afterSequence`. */
  attach(taskId: string, afterSequence: number): Promise<void>;
}

/**
 * The four push-config operations and the configs that arrive with
 * SendMessage, over a {@link PushConfigStore}. Every operation first checks
 * that the task exists and is visible to the caller (TaskNotFound
 * otherwise), so configs are scoped like their tasks. Webhook URLs are
 * checked by the delivery (its SSRF guard) before anything is stored.
 */
export class PushConfigMethods {
  private readonly store: PushConfigStore;
  private readonly delivery: PushDelivery | undefined;
  private readonly unwatch: (() => void) | undefined;
  /** `redactSecrets` as set; undefined: redact on calls that negotiated A2A 1.1 only. */
  private readonly redact: boolean | undefined;

  constructor(
    options: PushOptions,
    private readonly host: PushConfigHost,
  ) {
    this.store = options.store;
    this.delivery = options.delivery;
    this.redact = options.redactSecrets;
    // A task the store deletes or evicts takes its configs with it (a store without onRemoved leaves them to the delivery).
    this.unwatch = host.tasks.onRemoved?.((taskId) => {
      this.store.deleteTask(taskId).catch((error: unknown) => {
        host.logger?.warn({ taskId, error: String(error) }, 'Taskwire push: could not delete the push configs of a removed task');
      });
    });
    const delivery = options.delivery;
    if (delivery) {
      delivery.start({ tasks: host.tasks, configs: options.store });
      host.hub.observe((taskId) => delivery.notify(taskId));
    }
  }

  /** CreateTaskPushNotificationConfig: stores the config (a new id when it has none; an existing id is replaced). */
  async create(params: ParsedParamsOf<'CreateTaskPushNotificationConfig'>, context: CallContext): Promise<PushConfig> {
    const record = await this.host.visible(params.taskId, context, params.tenant);
    await this.checkUrl(params.url, 'url');
    const config = this.withId(params, params.taskId);
    const existing = await this.store.get(config.taskId, config.id);
    const delivered = existing?.delivered ?? record.lastSequence;
    const stored = await this.store.put({ owner: record.owner, config, delivered });
    this.delivery?.notify(config.taskId);
    return stored.config;
  }

  /** GetTaskPushNotificationConfig: TaskNotFound when the task or the config does not exist. */
  async get(params: ParsedParamsOf<'GetTaskPushNotificationConfig'>, context: CallContext): Promise<PushConfig> {
    const record = await this.host.visible(params.taskId, context, params.tenant);
    const entry = await this.store.get(params.taskId, params.id);
    if (!entry || entry.owner !== record.owner) {
      throw new A2AError(
        'TaskNotFound',
        `Push notification config ${params.id} of task ${params.taskId} was not found; list the task's configs to see which exist`,
        { taskId: params.taskId, configId: params.id },
      );
    }
    return this.shown(entry.config, context);
  }

  /** ListTaskPushNotificationConfigs: configs ordered by id; `pageSize` unset or 0 returns them all. */
  async list(params: ParsedParamsOf<'ListTaskPushNotificationConfigs'>, context: CallContext): Promise<ResultOf<'ListTaskPushNotificationConfigs'>> {
    const record = await this.host.visible(params.taskId, context, params.tenant);
    const after = params.pageToken ? decodeConfigToken(params.pageToken) : undefined;
    const all = (await this.store.list(params.taskId)).filter((e) => e.owner === record.owner && (after === undefined || e.config.id > after));
    const size = params.pageSize || all.length;
    const page = all.slice(0, size);
    const last = page[page.length - 1];
    return {
      configs: page.map((e) => this.shown(e.config, context)),
      ...(all.length > size && last && { nextPageToken: encodePageToken({ key: '', id: last.config.id }) }),
    };
  }

  /** A stored config as Get and List answer it: without its secrets when `redactSecrets` is on (by default, on A2A 1.1 calls). */
  private shown(config: PushConfig, context: CallContext): PushConfig {
    return (this.redact ?? speaksNext(context)) ? redactPushSecrets(config) : config;
  }

  /** DeleteTaskPushNotificationConfig: idempotent (a missing config is fine); TaskNotFound only for the task. */
  async delete(params: ParsedParamsOf<'DeleteTaskPushNotificationConfig'>, context: CallContext): Promise<ResultOf<'DeleteTaskPushNotificationConfig'>> {
    const record = await this.host.visible(params.taskId, context, params.tenant);
    const entry = await this.store.get(params.taskId, params.id);
    if (entry && entry.owner === record.owner) await this.store.delete(params.taskId, params.id);
    return {};
  }

  /**
   * Checks the config of a SendMessage before its task is created or
   * continued (so a refused URL changes nothing) and returns what attaches
   * it afterwards; `undefined` when the message carries none. The config's
   * own `taskId` is ignored (the spec leaves it empty there): it gets the
   * message's task.
   */
  async fromMessage(params: SendMessageRequest, owner: string): Promise<PendingPushConfig | undefined> {
    const given = params.configuration?.taskPushNotificationConfig;
    if (!given) return undefined;
    await this.checkUrl(given.url, 'configuration.taskPushNotificationConfig.url');
    return {
      attach: async (taskId, afterSequence) => {
        const config = this.withId(given, taskId);
        await this.store.put({ owner, config, delivered: afterSequence });
        this.delivery?.notify(taskId);
      },
    };
  }

  /** Stops the delivery (undelivered notifications stay in the outbox). */
  close(): Promise<void> {
    this.unwatch?.();
    return this.delivery?.close() ?? Promise.resolve();
  }

  private withId(config: TaskPushNotificationConfig, taskId: string): PushConfig {
    return { ...config, id: config.id || this.host.newId(), taskId };
  }

  private async checkUrl(url: string, field: string): Promise<void> {
    if (!this.delivery) return;
    try {
      await this.delivery.checkUrl(url);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw invalidParams(new z.ZodError([{ code: 'custom', path: field.split('.'), message, input: url }]));
    }
  }
}

function decodeConfigToken(token: string): string {
  try {
    const cursor = decodePageToken(token);
    if (cursor.key === '') return cursor.id;
  } catch {
    // reworded below for this operation
  }
  throw new A2AError(
    'InvalidParams',
    'Invalid parameters: pageToken is not a token this server issued; pass the nextPageToken of a previous ListTaskPushNotificationConfigs response, or omit it to start from the first page',
  );
}

/** `config` without its secrets: no `token`, and `authentication` keeping only its `scheme`. */
export function redactPushSecrets(config: PushConfig): PushConfig {
  if (config.token === undefined && config.authentication?.credentials === undefined) return config;
  const { token: _token, authentication, ...rest } = config;
  return { ...rest, ...(authentication && { authentication: { scheme: authentication.scheme } }) };
}

import type { PushConfigStore } from './push-config-store.js';

/** A push config's key: its task and its id. */
export interface PushConfigKey {
  readonly taskId: string;
  readonly configId: string;
}

/**
 * The keys of the configs in `configs` (of `taskId`'s alone when given):
 * from the store's `keys` when it has one (no secret is opened, so a
 * config whose secrets do not open is still listed), else from `all` /
 * `list`. What a delivery schedules its work from.
 */
export async function pushConfigKeys(configs: PushConfigStore, taskId?: string): Promise<readonly PushConfigKey[]> {
  if (configs.keys) return configs.keys(taskId);
  const entries = taskId === undefined ? await configs.all() : await configs.list(taskId);
  return entries.map(({ config }) => ({ taskId: config.taskId, configId: config.id }));
}

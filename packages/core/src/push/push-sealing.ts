import type { PushConfig, StoredPushConfig } from './push-config-store.js';

/**
 * The name under which a durable push store records that its one-time
 * sealing step ran (see {@link sealPushSecretsOnce}); stores on SQL
 * databases use it as the key of their step or meta row.
 */
export const PUSH_SECRETS_SEALED = 'push-secrets-sealed';

/** True when `config` carries a token or credentials in the clear (not sealed). */
export function hasPlainSecrets(config: PushConfig): boolean {
  return (config as { sealed?: unknown }).sealed === undefined && (config.token !== undefined || config.authentication !== undefined);
}

/** A stored config read for the sealing step, with the store's own handle on where it came from (a row). */
export interface SealingCandidate<R> {
  /** Where the entry was read from, as the store needs it to replace it only if unchanged. */
  readonly row: R;
  /** The entry as stored (secrets in the clear, sealed, or sealed in a legacy format). */
  readonly entry: StoredPushConfig;
}

/** How a store takes part in {@link sealPushSecretsOnce}. */
export interface PushSealingStep<R> {
  /** True when the step is recorded already (it then never runs again). */
  recorded(): Promise<boolean>;
  /** Every stored config that may need sealing. */
  read(): Promise<Iterable<SealingCandidate<R>>>;
  /**
   * Writes each sealed entry in place of its row, only where the row is
   * unchanged since it was read, then records the step; resolves how many
   * rows it replaced.
   */
  finish(sealed: readonly SealingCandidate<R>[]): Promise<number>;
}

/** How entries are sealed in the step: `seal` for secrets in the clear, and `resealLegacy` (when given) for those in a legacy format. */
export interface PushSealer {
  /** The entry with its secrets sealed. */
  seal(entry: StoredPushConfig): StoredPushConfig;
  /** The entry sealed again in the current format when it is sealed in a legacy one; undefined otherwise. */
  resealLegacy?(entry: StoredPushConfig): StoredPushConfig | undefined;
}

/**
 * A durable push store's one-time sealing step, the first time it opens
 * with encryption: unless `step` says it ran already, seals every stored
 * config whose secrets are in the clear (and, with `resealLegacy`, seals
 * again those in a legacy format), hands them to `step.finish` to replace
 * their unchanged rows and record the step, and resolves how many rows were
 * replaced (0 when the step was recorded). Once recorded, a secret in the
 * clear that appears later (a backup written back, a process without the
 * encryption option) is never vouched for: the store refuses to read it.
 */
export async function sealPushSecretsOnce<R>(step: PushSealingStep<R>, sealer: PushSealer): Promise<number> {
  if (await step.recorded()) return 0;
  const sealed: SealingCandidate<R>[] = [];
  for (const { row, entry } of await step.read()) {
    const next = sealer.resealLegacy?.(entry) ?? (hasPlainSecrets(entry.config) ? sealer.seal(entry) : undefined);
    if (next) sealed.push({ row, entry: next });
  }
  return step.finish(sealed);
}

import { open, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { syncDirectory } from '../store/file/compaction.js';
import { writeFully } from '../store/file/log-writer.js';
import type { StoredPushConfig } from './push-config-store.js';
import { PUSH_SECRETS_SEALED, sealPushSecretsOnce } from './push-sealing.js';
import { refuseUnsealedPushSecrets, type PushSecretBox } from './push-secrets.js';

/**
 * The file, beside `push.log`, that records the directory's one-time
 * sealing step (see {@link sealFilePushSecretsOnce}). Releases before the
 * step existed never read it and leave it in place.
 */
export const PUSH_SEALED_FILE = PUSH_SECRETS_SEALED;

/** What the sealing step needs of an opening file push store. */
export interface FileSealingTarget {
  /** The store's directory (where `push.log` and the marker live). */
  readonly directory: string;
  /** Whether writes are synced (the store's `fsync` option). */
  readonly fsync: boolean;
  /** Every config as replayed from the log, secrets as stored. */
  entries(): readonly StoredPushConfig[];
  /** Logs `entry` in place of the config with its task and id, durably. */
  write(entry: StoredPushConfig): Promise<void>;
  /** Rewrites the log from the current state (so replaced values leave the file). */
  compact(): Promise<void>;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** Writes the marker atomically: a synced temporary file renamed over it, then the directory synced. */
async function recordStep(directory: string, fsync: boolean): Promise<void> {
  const path = join(directory, PUSH_SEALED_FILE);
  const tmp = `${path}.tmp`;
  const handle = await open(tmp, 'w', 0o600);
  try {
    await writeFully(handle, Buffer.from(`${JSON.stringify({ step: PUSH_SECRETS_SEALED, at: new Date().toISOString() })}\n`), 0);
    if (fsync) await handle.datasync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw error;
  }
  await handle.close();
  await rename(tmp, path);
  if (fsync) await syncDirectory(directory);
}

/**
 * The one-time sealing step of a file push store's directory, run when
 * the store opens with `encryption` and {@link PUSH_SEALED_FILE} is not
 * there yet: seals (bound to owner and URL) the secrets stored in the clear
 * before encryption was turned on and those an earlier release sealed in
 * the legacy format, compacts the log so none of those values stays in
 * it, then writes the marker. Resolves how many configs it sealed (0 once
 * the marker is there: the step never runs again, so a value in the clear
 * or in the legacy format read later is refused, see
 * {@link refuseUnsealedFileSecrets}). A crash before the marker is written
 * leaves the step to run again at the next open, which finds nothing left
 * to seal but what a crash interrupted.
 */
export async function sealFilePushSecretsOnce(target: FileSealingTarget, box: PushSecretBox): Promise<number> {
  return sealPushSecretsOnce<undefined>(
    {
      recorded: () => exists(join(target.directory, PUSH_SEALED_FILE)),
      read: async () => target.entries().map((entry) => ({ row: undefined, entry })),
      finish: async (sealed) => {
        // The store is not handed out yet: no write can race the ones below.
        for (const { entry } of sealed) await target.write(entry);
        await target.compact();
        await recordStep(target.directory, target.fsync);
        return sealed.length;
      },
    },
    { seal: (entry) => box.seal(entry), resealLegacy: (entry) => box.resealLegacy(entry) },
  );
}

/**
 * For a file store opened with `encryption` (so its step is recorded):
 * throws a `PushSecretError` when `entry` holds secrets in the clear or in
 * the legacy format, which only a line written to `push.log` after the step
 * can hold (lines written back from a backup, a process without the
 * option or of an earlier release). The message says how to repair it.
 */
export function refuseUnsealedFileSecrets(entry: StoredPushConfig, directory: string): void {
  const marker = join(directory, PUSH_SEALED_FILE);
  refuseUnsealedPushSecrets(
    entry.config,
    "this directory's",
    `set the config again to repair it (or, for a push.log you restored on purpose and trust, delete ${marker} and reopen the store: it then seals what the log holds once more)`,
  );
}

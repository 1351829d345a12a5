// The file push store's one-time sealing step beside the previous release:
// this release seals a directory's push secrets once and records the step
// in a marker beside push.log; a process of the previous release (its own
// code, in a process of its own) sharing the directory ignores the marker,
// reads the sealed values and writes its own, which this release accepts
// without running the step again. A value that release writes without the
// key is refused by this release, as SECURITY.md says, and still read by it.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoredPushConfig } from '@taskwire/core';
import { FilePushConfigStore, PUSH_LOG, PushSecretError } from '@taskwire/core/push';
import { sealLegacyPushSecrets } from '@taskwire/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { previousRelease, type Release } from './support/previous-release.js';
import { PREVIOUS_RELEASE } from './support/releases.js';

/** The marker the step writes beside push.log (`PUSH_SEALED_FILE` in core, not exported). */
const MARKER = 'push-secrets-sealed';
const key = Buffer.alloc(32, 7);
const encryption = { current: 'k', keys: { k: key } };
const KEY_ARG = key.toString('base64');
const plain: StoredPushConfig = { owner: 'alice', delivered: 0, config: { taskId: 't1', id: 'plain', url: 'https://hooks.example.com/plain', token: 'S3CRET-PLAIN' } };
const legacy: StoredPushConfig = { owner: 'alice', delivered: 0, config: { taskId: 't2', id: 'legacy', url: 'https://hooks.example.com/legacy', token: 'S3CRET-LEGACY' } };
const byId = (entries: StoredPushConfig[]) => [...entries].sort((a, b) => a.config.id.localeCompare(b.config.id));

describe('the file push store sealed once by this release, shared with the previous release (its own code, in processes of its own)', () => {
  let previous: Release;
  const made: string[] = [];
  beforeAll(() => {
    previous = previousRelease(PREVIOUS_RELEASE);
  }, 240_000);
  afterAll(() => Promise.all(made.map((directory) => rm(directory, { recursive: true, force: true }))));

  /** The previous release's push op on `directory` (it needs no PostgreSQL). */
  const previousPush = <T>(op: string, directory: string, keyArg: string, ...args: string[]) => previous.probe<T>('-', '-', op, directory, keyArg, ...args);
  const files = async (directory: string) => ({ log: await readFile(join(directory, PUSH_LOG)), marker: await readFile(join(directory, MARKER), 'utf8') });

  /** A directory holding a config in the clear and one sealed in the legacy format, opened once with the key by this release (the step runs). */
  async function sealedDirectory(): Promise<string> {
    const directory = await mkdtemp(join(tmpdir(), 'taskwire-older-push-'));
    made.push(directory);
    const before = await FilePushConfigStore.open({ directory });
    await before.put(plain);
    // As an earlier release sealed it (task and config only); without the key, reading it back is refused once it is logged.
    const legacySealed = { ...legacy, config: sealLegacyPushSecrets(legacy.config, 'k', key) };
    await expect(before.put(legacySealed)).rejects.toThrow(PushSecretError);
    await before.close();
    const store = await FilePushConfigStore.open({ directory }, { encryption });
    await store.close();
    const { log, marker } = await files(directory);
    expect(JSON.parse(marker)).toMatchObject({ step: MARKER });
    expect(log.includes('S3CRET-PLAIN') || log.includes('tw1:')).toBe(false);
    return directory;
  }

  it('the previous release reads the sealed configs and writes its own; this release accepts it without running the step again', async () => {
    const directory = await sealedDirectory();
    const sealed = await files(directory);
    // (1) The previous release, with the same key, reads both as they were set and seals a config of its own.
    expect(byId(await previousPush<StoredPushConfig[]>('push-all', directory, KEY_ARG))).toEqual([legacy, plain]);
    const written = await previousPush<StoredPushConfig>('push-put', directory, KEY_ARG, 't3', 'older', 'https://hooks.example.com/older', 'S3CRET-OLDER');
    const older: StoredPushConfig = { owner: 'alice', delivered: 0, config: { taskId: 't3', id: 'older', url: 'https://hooks.example.com/older', token: 'S3CRET-OLDER' } };
    expect(written).toEqual(older);
    const after = await files(directory);
    // It left the marker alone and only appended its write, sealed.
    expect(after.marker).toBe(sealed.marker);
    expect(after.log.subarray(0, sealed.log.length).equals(sealed.log)).toBe(true);
    expect(after.log.length).toBeGreaterThan(sealed.log.length);
    expect(after.log.includes('S3CRET-OLDER')).toBe(false);
    // (2) This release reopens: the step does not run again (no compaction, marker as it was) and all three read.
    const store = await FilePushConfigStore.open({ directory }, { encryption });
    try {
      expect(await files(directory)).toEqual(after);
      expect(byId(await store.all())).toEqual([legacy, older, plain]);
      expect(await store.get('t3', 'older')).toEqual(older);
    } finally {
      await store.close();
    }
  }, 120_000);

  it('a config the previous release writes without the key is refused by this release after the step, and still read by the previous release', async () => {
    const directory = await sealedDirectory();
    const clear: StoredPushConfig = { owner: 'alice', delivered: 0, config: { taskId: 't4', id: 'clear', url: 'https://hooks.example.com/clear', token: 'S3CRET-CLEAR' } };
    expect(await previousPush<StoredPushConfig>('push-put', directory, '-', 't4', 'clear', 'https://hooks.example.com/clear', 'S3CRET-CLEAR')).toEqual(clear);
    const store = await FilePushConfigStore.open({ directory }, { encryption });
    try {
      await expect(store.get('t4', 'clear')).rejects.toThrow(/stored without encryption, written after this directory's one-time sealing step/);
      expect(await store.get('t1', 'plain')).toEqual(plain);
      expect(await store.get('t2', 'legacy')).toEqual(legacy);
    } finally {
      await store.close();
    }
    // The previous release ignores the marker: with the key, it still reads the value in the clear.
    expect(byId(await previousPush<StoredPushConfig[]>('push-all', directory, KEY_ARG))).toEqual([clear, legacy, plain]);
  }, 120_000);
});

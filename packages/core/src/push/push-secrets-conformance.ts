import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { PushConfig, PushConfigStore } from './push-config-store.js';
import { testPushConfig } from './push-store-conformance.js';
import type { PushEncryptionOptions } from './push-secrets.js';

/**
 * `config` as the release before owner and URL binding stored it (format
 * `tw1`: task and config alone in the additional data), sealed with
 * `key` under id `keyId`: for tests of the reseal on upgrade.
 */
export function sealLegacyPushSecrets(config: PushConfig, keyId: string, key: Uint8Array): PushConfig {
  const { authentication, token, ...rest } = config;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(`${config.taskId}\u0000${config.id}`));
  const data = Buffer.concat([cipher.update(JSON.stringify({ authentication, token }), 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return { ...rest, sealed: `tw1:${keyId}:${iv.toString('base64url')}:${data.toString('base64url')}` } as PushConfig;
}

/** What the encryption suite opens for each test: a durable push store's data, opened as often as the test needs. */
export interface EncryptedPushStoreHarness {
  /** Opens a store on this test's data (the same data every time) with `encryption`; the suite closes the previous one first. */
  open(encryption?: PushEncryptionOptions): Promise<PushConfigStore>;
  /** Everything the store has stored, as text (its files, its table rows), to look for secrets in. */
  raw(): Promise<string>;
  /** Removes the test's data. */
  cleanup?(): Promise<void>;
}

const key = (byte: number) => Buffer.alloc(32, byte);
const ring = (current: string, ...ids: string[]): PushEncryptionOptions => ({
  current,
  keys: Object.fromEntries(ids.map((id) => [id, key(id.charCodeAt(0))])),
});
/** A config with secrets no store may keep in the clear. */
const secretConfig = (configId: string, secret: string) =>
  testPushConfig('t1', configId, 0, { token: `${secret}-token`, authentication: { scheme: 'Bearer', credentials: `${secret}-credentials` } });

async function failure(call: Promise<unknown>): Promise<Error> {
  try {
    await call;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to fail');
}

/**
 * Registers the rules of push secret encryption at rest for a durable
 * {@link PushConfigStore} with an `encryption` option: secrets never stored
 * in the clear, rotation (values sealed with a retired key that is still
 * configured read fine; writes seal with the current key), a clear error
 * naming the missing key (and never a secret) otherwise, and configs stored
 * before encryption was turned on still read.
 */
export function runPushEncryptionConformance(name: string, open: () => Promise<EncryptedPushStoreHarness>): void {
  const run = (fn: (h: EncryptedPushStoreHarness, use: (s: PushConfigStore) => PushConfigStore) => Promise<void>) => async () => {
    const harness = await open();
    const stores: PushConfigStore[] = [];
    try {
      await fn(harness, (store) => (stores.push(store), store));
    } finally {
      for (const store of stores) await store.close().catch(() => undefined);
      await harness.cleanup?.();
    }
  };

  describe(`push secret encryption: ${name}`, () => {
    it('stores neither authentication nor token in the clear, and reads them back', run(async (h, use) => {
      const store = use(await h.open(ring('a', 'a')));
      const entry = secretConfig('c1', 'S3CRET1');
      expect(await store.put(entry)).toEqual(entry);
      expect(await store.get('t1', 'c1')).toEqual(entry);
      expect(await store.list('t1')).toEqual([entry]);
      expect(await store.all()).toEqual([entry]);
      await store.close();
      expect(await h.raw()).not.toMatch(/S3CRET1/);
      expect(await use(await h.open(ring('a', 'a'))).get('t1', 'c1')).toEqual(entry);
    }));

    it('reads values sealed with a retired key still configured, and seals writes with the current key', run(async (h, use) => {
      const first = use(await h.open(ring('a', 'a')));
      await first.put(secretConfig('old', 'S3CRET-OLD'));
      await first.close();
      const rotated = use(await h.open(ring('b', 'a', 'b')));
      expect(await rotated.get('t1', 'old')).toEqual(secretConfig('old', 'S3CRET-OLD'));
      await rotated.put(secretConfig('new', 'S3CRET-NEW'));
      await rotated.close();
      const retired = use(await h.open(ring('b', 'b')));
      expect(await retired.get('t1', 'new')).toEqual(secretConfig('new', 'S3CRET-NEW'));
      const error = await failure(retired.get('t1', 'old'));
      expect(error.message).toMatch(/key "a"/);
      expect(error.message).not.toMatch(/S3CRET/);
      expect(await h.raw()).not.toMatch(/S3CRET/);
    }));

    it('refuses to read sealed secrets without the encryption option, or with another key under the same id, never showing them', run(async (h, use) => {
      const sealed = use(await h.open(ring('a', 'a')));
      await sealed.put(secretConfig('c1', 'S3CRET2'));
      await sealed.close();
      const plain = use(await h.open());
      const missing = await failure(plain.get('t1', 'c1'));
      expect(missing.message).toMatch(/encrypt/);
      expect(missing.message).not.toMatch(/S3CRET/);
      await plain.close();
      const wrong = use(await h.open({ current: 'a', keys: { a: key(0x7a) } }));
      const mismatch = await failure(wrong.get('t1', 'c1'));
      expect(mismatch.message).toMatch(/key "a"/);
      expect(mismatch.message).not.toMatch(/S3CRET/);
    }));

    it('reads configs stored before encryption was turned on', run(async (h, use) => {
      const plain = use(await h.open());
      await plain.put(secretConfig('c1', 'S3CRET3'));
      await plain.put(testPushConfig('t1', 'c2'));
      await plain.close();
      const sealed = use(await h.open(ring('a', 'a')));
      expect(await sealed.list('t1')).toEqual([secretConfig('c1', 'S3CRET3'), testPushConfig('t1', 'c2')]);
    }));
  });
}

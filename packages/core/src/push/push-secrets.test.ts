import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../temp-dirs.js';
import { runPushConfigStoreConformance, runPushEncryptionConformance, sealLegacyPushSecrets, testPushConfig } from '../testing.js';
import { PUSH_LOG } from './file-push-log.js';
import { FilePushConfigStore } from './file-push-store.js';
import { PushSecretBox } from './push-secrets.js';

const tempDir = useTempDirs('taskwire-push-secrets-');
const encryption = { current: 'k1', keys: { k1: Buffer.alloc(32, 1) } };

runPushConfigStoreConformance(
  'FilePushConfigStore (encrypted)',
  async () => {
    const directory = await tempDir();
    const open = () => FilePushConfigStore.open({ directory }, { encryption });
    return { store: await open(), reopen: open };
  },
  { durable: true },
);

runPushEncryptionConformance('FilePushConfigStore', async () => {
  const directory = await tempDir();
  return {
    open: (options) => FilePushConfigStore.open({ directory }, { encryption: options }),
    raw: () => readFile(join(directory, PUSH_LOG), 'latin1'),
  };
});

describe('PushSecretBox', () => {
  it('refuses a key that is not 32 bytes or an unknown current key, without showing the key', () => {
    const attempt = (keys: Record<string, string | Uint8Array>, current = 'k') => () => new PushSecretBox({ keys, current });
    expect(attempt({ k: 'dG9vLXNob3J0LWtleQ==' })).toThrow(/key "k" must be 32 bytes \(AES-256\), got 13/);
    expect(attempt({ k: 'dG9vLXNob3J0LWtleQ==' })).not.toThrow(/dG9v|too-short/);
    expect(attempt({ k: Buffer.alloc(32) }, 'other')).toThrow(/current key "other" is not in keys/);
    expect(attempt({ 'bad id': Buffer.alloc(32) }, 'bad id')).toThrow(/key id/);
    expect(attempt({ k: Buffer.alloc(32).toString('base64') })).not.toThrow();
  });

  it('binds a sealed value to its config: copied onto another config it does not open', () => {
    const box = new PushSecretBox({ keys: { k: Buffer.alloc(32, 9) }, current: 'k' });
    const sealed = box.seal(testPushConfig('t1', 'c1', 0, { token: 'tok' }));
    expect(box.open(sealed)).toEqual(testPushConfig('t1', 'c1', 0, { token: 'tok' }));
    const moved = { ...sealed, config: { ...sealed.config, id: 'c2' } };
    expect(() => box.open(moved)).toThrow(/do not open with key "k"/);
    expect(box.seal(testPushConfig('t1', 'c3'))).toEqual(testPushConfig('t1', 'c3'));
  });

  it('binds a sealed value to its owner and URL: a changed URL or owner does not open, and says so', () => {
    const box = new PushSecretBox({ keys: { k: Buffer.alloc(32, 9) }, current: 'k' });
    const sealed = box.seal({ ...testPushConfig('t1', 'c1', 0, { token: 'S3CRET' }), owner: 'alice' });
    expect(() => box.open({ ...sealed, config: { ...sealed.config, url: 'http://127.0.0.1:9/evil' } })).toThrow(/URL or owner was changed/);
    expect(() => box.open({ ...sealed, owner: 'mallory' })).toThrow(/URL or owner was changed/);
    expect(() => box.open({ ...sealed, owner: 'mallory' })).not.toThrow(/S3CRET/);
  });

  it('opens a legacy (tw1) value only to reseal it, bound to the owner and URL it has then', () => {
    const box = new PushSecretBox({ keys: { k: Buffer.alloc(32, 9) }, current: 'k' });
    const plain = { ...testPushConfig('t1', 'c1', 0, { token: 'S3CRET' }), owner: 'alice' };
    const legacy = { ...plain, config: sealLegacyPushSecrets(plain.config, 'k', Buffer.alloc(32, 9)) };
    expect(() => box.open(legacy)).toThrow(/sealed by an earlier release/);
    const resealed = box.resealLegacy(legacy)!;
    expect((resealed.config as { sealed?: string }).sealed).toMatch(/^tw2:k:/);
    expect(box.open(resealed)).toEqual(plain);
    expect(box.resealLegacy(resealed)).toBeUndefined();
    expect(box.resealLegacy(plain)).toBeUndefined();
  });

  it('a file store reseals legacy values when it opens', async () => {
    const directory = await tempDir();
    const plain = { ...testPushConfig('t1', 'c1', 0, { token: 'S3CRET' }), owner: 'alice' };
    const first = await FilePushConfigStore.open({ directory });
    // A store without encryption keeps the legacy value as given (and, without the key, cannot show it back).
    await expect(first.put({ ...plain, config: sealLegacyPushSecrets(plain.config, 'k1', encryption.keys.k1) })).rejects.toThrow(/encryption option/);
    await first.close();
    const store = await FilePushConfigStore.open({ directory }, { encryption });
    expect(await store.get('t1', 'c1')).toEqual(plain);
    await store.close();
    expect(await readFile(join(directory, PUSH_LOG), 'latin1')).toMatch(/"sealed":"tw2:k1:/);
  });
});

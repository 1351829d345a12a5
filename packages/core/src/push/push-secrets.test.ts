import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../temp-dirs.js';
import { runPushConfigStoreConformance, runPushEncryptionConformance, testPushConfig } from '../testing.js';
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
});

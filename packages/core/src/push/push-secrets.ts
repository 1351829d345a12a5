import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { PushConfig, StoredPushConfig } from './push-config-store.js';

/**
 * Encryption at rest of push config secrets (a config's `authentication`
 * and `token`), for durable push stores. AES-256-GCM; each value records
 * the id of the key it was sealed with, so keys can be rotated: seal with
 * `current`, and keep retired keys in `keys` for as long as values sealed
 * with them may remain (a value is sealed again with the current key
 * whenever its config is written).
 */
export interface PushEncryptionOptions {
  /** Keys by id (letters, digits, `.`, `_`, `-`): 32 bytes each, as bytes or base64 text (`openssl rand -base64 32`). */
  readonly keys: Readonly<Record<string, string | Uint8Array>>;
  /** The id of the key new values are sealed with; it must be in `keys`. */
  readonly current: string;
}

/** A stored config's secrets could not be opened: the key it names is not configured, or the value was tampered with. */
export class PushSecretError extends Error {
  override readonly name = 'PushSecretError';
}

const FORMAT = 'tw1';
const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** What the sealed text holds. */
interface Secrets {
  authentication?: PushConfig['authentication'];
  token?: string;
}

/** A config as a durable store keeps it: its secrets replaced by `sealed` (`tw1:<key id>:<iv>:<ciphertext+tag>`, base64url). */
type SealedConfig = Omit<PushConfig, 'authentication' | 'token'> & { readonly sealed?: string };

function keyBytes(id: string, key: string | Uint8Array): Buffer {
  if (!KEY_ID.test(id)) throw new RangeError(`push encryption: key id ${JSON.stringify(id)} must be 1-64 letters, digits, ".", "_" or "-"`);
  const bytes = typeof key === 'string' ? Buffer.from(key, 'base64') : Buffer.from(key);
  // Never echo the key itself: only its id and length.
  if (bytes.length !== 32) throw new RangeError(`push encryption: key "${id}" must be 32 bytes (AES-256), got ${bytes.length}`);
  return bytes;
}

/** Binds a sealed value to its config: a value copied onto another config does not open. */
function aadOf(config: Pick<PushConfig, 'taskId' | 'id'>): Buffer {
  return Buffer.from(`${config.taskId}\u0000${config.id}`);
}

/**
 * Seals and opens push config secrets with a key ring (see
 * {@link PushEncryptionOptions}). One instance serves any number of stores.
 */
export class PushSecretBox {
  private readonly keys = new Map<string, Buffer>();
  private readonly current: string;

  constructor(options: PushEncryptionOptions) {
    for (const [id, key] of Object.entries(options.keys)) this.keys.set(id, keyBytes(id, key));
    if (!this.keys.has(options.current)) throw new RangeError(`push encryption: the current key "${options.current}" is not in keys`);
    this.current = options.current;
  }

  /** `entry` with its config's secrets sealed with the current key (the same entry when it has none). */
  seal(entry: StoredPushConfig): StoredPushConfig {
    const { authentication, token, ...rest } = entry.config;
    if (authentication === undefined && token === undefined) return entry;
    const secrets: Secrets = {};
    if (authentication !== undefined) secrets.authentication = authentication;
    if (token !== undefined) secrets.token = token;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.current)!, iv);
    cipher.setAAD(aadOf(entry.config));
    const data = Buffer.concat([cipher.update(JSON.stringify(secrets), 'utf8'), cipher.final(), cipher.getAuthTag()]);
    const sealed = `${FORMAT}:${this.current}:${iv.toString('base64url')}:${data.toString('base64url')}`;
    return { ...entry, config: { ...rest, sealed } as SealedConfig as PushConfig };
  }

  /** `entry` with its config's secrets opened; a config without sealed secrets is returned as it is. */
  open(entry: StoredPushConfig): StoredPushConfig {
    const { sealed, ...rest } = entry.config as SealedConfig;
    if (sealed === undefined) return entry;
    const [format, keyId = '', iv = '', data = ''] = sealed.split(':');
    const where = `the push config ${entry.config.id} of task ${entry.config.taskId}`;
    if (format !== FORMAT) throw new PushSecretError(`${where} has secrets in an unknown format`);
    const key = this.keys.get(keyId);
    if (key === undefined) throw new PushSecretError(`${where} was encrypted with key "${keyId}", which is not configured: add it to encryption.keys`);
    let secrets: Secrets;
    try {
      const bytes = Buffer.from(data, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(aadOf(entry.config));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      secrets = JSON.parse(Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8')) as Secrets;
    } catch {
      throw new PushSecretError(`${where} has secrets that do not open with key "${keyId}" (a different key under that id, or a damaged value)`);
    }
    return { ...entry, config: { ...(rest as PushConfig), ...secrets } };
  }
}

/**
 * Opens the secrets of a stored entry with `box`; without a box, an entry
 * whose secrets are sealed is a {@link PushSecretError} saying that the
 * store needs its `encryption` option.
 */
export function openPushSecrets(entry: StoredPushConfig, box: PushSecretBox | undefined): StoredPushConfig {
  if (box) return box.open(entry);
  if ((entry.config as SealedConfig).sealed !== undefined) {
    throw new PushSecretError(`the push config ${entry.config.id} of task ${entry.config.taskId} has encrypted secrets: open the store with its encryption option`);
  }
  return entry;
}

/** A box for `options`, or undefined when encryption is not configured. */
export function pushSecretBox(options: PushEncryptionOptions | undefined): PushSecretBox | undefined {
  return options && new PushSecretBox(options);
}

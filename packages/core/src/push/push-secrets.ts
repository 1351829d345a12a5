import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { PushConfig, StoredPushConfig } from './push-config-store.js';
import { hasPlainSecrets } from './push-sealing.js';

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

/** The current format: task, config, owner and URL in the additional data. */
const FORMAT = 'tw2';
/** The format of releases before 0.x: task and config only; opened by {@link PushSecretBox.resealLegacy} alone. */
const LEGACY_FORMAT = 'tw1';
const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** What the sealed text holds. */
interface Secrets {
  authentication?: PushConfig['authentication'];
  token?: string;
}

/** A config as a durable store keeps it: its secrets replaced by `sealed` (`tw2:<key id>:<iv>:<ciphertext+tag>`, base64url). */
type SealedConfig = Omit<PushConfig, 'authentication' | 'token'> & { readonly sealed?: string };

function keyBytes(id: string, key: string | Uint8Array): Buffer {
  if (!KEY_ID.test(id)) throw new RangeError(`push encryption: key id ${JSON.stringify(id)} must be 1-64 letters, digits, ".", "_" or "-"`);
  const bytes = typeof key === 'string' ? Buffer.from(key, 'base64') : Buffer.from(key);
  // Never echo the key itself: only its id and length.
  if (bytes.length !== 32) throw new RangeError(`push encryption: key "${id}" must be 32 bytes (AES-256), got ${bytes.length}`);
  return bytes;
}

/**
 * The additional data a value is sealed with: a value copied onto another
 * config, or left on a row whose URL or owner was changed, does not open.
 * JSON keeps the fields apart whatever they contain.
 */
function aadOf(entry: StoredPushConfig, format: string): Buffer {
  const { taskId, id, url } = entry.config;
  return Buffer.from(format === LEGACY_FORMAT ? `${taskId}\u0000${id}` : JSON.stringify([format, taskId, id, entry.owner, url]));
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
    cipher.setAAD(aadOf(entry, FORMAT));
    const data = Buffer.concat([cipher.update(JSON.stringify(secrets), 'utf8'), cipher.final(), cipher.getAuthTag()]);
    const sealed = `${FORMAT}:${this.current}:${iv.toString('base64url')}:${data.toString('base64url')}`;
    return { ...entry, config: { ...rest, sealed } as SealedConfig as PushConfig };
  }

  /**
   * `entry` with its config's secrets opened; a config without sealed
   * secrets is returned as it is. A value that does not open against the
   * entry's task, config, owner and URL (one of them was changed where the
   * value is stored), or one in the legacy format (see
   * {@link PushSecretBox.resealLegacy}), is a {@link PushSecretError}:
   * nothing is sent with it.
   */
  open(entry: StoredPushConfig): StoredPushConfig {
    return this.unseal(entry, FORMAT);
  }

  /**
   * For an entry sealed in the legacy format (task and config only in the
   * additional data, written by releases before this one): the entry sealed
   * again in the current format, bound to the owner and URL it has now;
   * undefined for any other entry. Whoever calls it vouches for that owner
   * and URL, so stores call it once, at an upgrade, and never on delivery.
   */
  resealLegacy(entry: StoredPushConfig): StoredPushConfig | undefined {
    const sealed = (entry.config as SealedConfig).sealed;
    if (sealed === undefined || !sealed.startsWith(`${LEGACY_FORMAT}:`)) return undefined;
    return this.seal(this.unseal(entry, LEGACY_FORMAT));
  }

  private unseal(entry: StoredPushConfig, expected: string): StoredPushConfig {
    const { sealed, ...rest } = entry.config as SealedConfig;
    if (sealed === undefined) return entry;
    const [format, keyId = '', iv = '', data = ''] = sealed.split(':');
    const where = `the push config ${entry.config.id} of task ${entry.config.taskId}`;
    if (format === LEGACY_FORMAT && expected !== LEGACY_FORMAT) {
      throw new PushSecretError(`${where} has secrets sealed by an earlier release, not bound to its URL and owner: open the store once with its encryption option by this release, which reseals them`);
    }
    if (format !== expected) throw new PushSecretError(`${where} has secrets in an unknown format`);
    const key = this.keys.get(keyId);
    if (key === undefined) throw new PushSecretError(`${where} was encrypted with key "${keyId}", which is not configured: add it to encryption.keys`);
    let secrets: Secrets;
    try {
      const bytes = Buffer.from(data, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(aadOf(entry, format));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      secrets = JSON.parse(Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8')) as Secrets;
    } catch {
      throw new PushSecretError(`${where} has secrets that do not open with key "${keyId}" for its URL and owner (the URL or owner was changed where it is stored, a different key under that id, or a damaged value): nothing is sent`);
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

/**
 * For a durable store whose one-time sealing step is recorded (see
 * `sealPushSecretsOnce`): throws a {@link PushSecretError} when `config`
 * holds secrets sealed in the legacy format or in the clear, which only a
 * write after the step (a backup written back, a process without the
 * encryption option) can have put there; such a value is never vouched for.
 * `scope` names where the step is recorded ("this schema's"); `repair`
 * tells the operator what to do (default: set the config again). The
 * message never holds the secret.
 */
export function refuseUnsealedPushSecrets(config: PushConfig, scope: string, repair = 'set the config again to repair it'): void {
  const where = `the push config ${config.id} of task ${config.taskId}`;
  if ((config as SealedConfig).sealed?.startsWith(`${LEGACY_FORMAT}:`)) {
    throw new PushSecretError(`${where} has secrets sealed by an earlier release, written after ${scope} one-time sealing step (from a backup?): it is never resealed and nothing is sent; ${repair}`);
  }
  if (hasPlainSecrets(config)) {
    throw new PushSecretError(`${where} has secrets stored without encryption, written after ${scope} one-time sealing step (from a backup, or by a process without the encryption option?): nothing is sent; ${repair}`);
  }
}

/** A box for `options`, or undefined when encryption is not configured. */
export function pushSecretBox(options: PushEncryptionOptions | undefined): PushSecretBox | undefined {
  return options && new PushSecretBox(options);
}

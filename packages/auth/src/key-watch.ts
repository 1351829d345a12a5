import type { Logger } from '@taskwire/core';
import { credentialWithdrawn } from '@taskwire/core';
import type { ExportedJWKSCache, JSONWebKeySet, JWK } from 'jose';
import { calculateJwkThumbprint, exportJWK } from 'jose';

/** Options of {@link keyWatch}. */
export interface KeyWatchOptions {
  /** Fetches the issuer's key set again (jose's `reload()`); what it fetched reaches {@link KeyWatch.cache}. */
  readonly reload: () => Promise<void>;
  /** Time between two such fetches while a principal is watched (0: none; the key set is then checked only when it is fetched for other reasons). */
  readonly intervalMs: number;
  readonly logger?: Logger | undefined;
}

/**
 * Which signing keys the principals of verified tokens hang on. Every
 * principal gets the signal of the key that verified its token; whenever
 * the issuer's key set is fetched (jose refreshing its cache, an unknown
 * `kid`, or the periodic check), a watched key that is no longer in it is
 * withdrawn: its signal aborts with core's `credentialWithdrawn()`, so the
 * streams and connections those principals opened end.
 */
export interface KeyWatch {
  /** The signal of `key` (the key `jwtVerify` resolved), watched at least until `until` (ms; `undefined`: for as long as the watch runs). */
  signalOf(key: unknown, until: number | undefined): Promise<AbortSignal>;
  /** The `jwksCache` to hand to jose's `createRemoteJWKSet`: each key set jose applies is checked against the watched keys. */
  readonly cache: ExportedJWKSCache;
  /**
   * Stops the periodic check for good: the pending timer is cleared and
   * none is scheduled again (a check in flight finishes, and schedules
   * none). Key sets fetched for other reasons are still checked. Idempotent.
   */
  close(): void;
}

interface Watched {
  readonly controller: AbortController;
  until: number;
}

/** A {@link KeyWatch}: keys are told apart by their RFC 7638 thumbprint, so a key set without `kid`s, or one that reuses a `kid` for new key material, is judged rightly. */
export function keyWatch(options: KeyWatchOptions): KeyWatch {
  const watched = new Map<string, Watched>();
  const thumbprints = new WeakMap<object, Promise<string>>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stored: JSONWebKeySet | undefined;
  let checked = Promise.resolve();
  let closed = false;

  const check = async (set: JSONWebKeySet) => {
    const published = new Set(await Promise.all(set.keys.map((jwk) => calculateJwkThumbprint(jwk as JWK).catch(() => ''))));
    for (const [thumbprint, entry] of watched) {
      if (published.has(thumbprint)) continue;
      watched.delete(thumbprint);
      entry.controller.abort(credentialWithdrawn());
    }
  };
  const tick = async () => {
    timer = undefined;
    const now = Date.now();
    for (const [thumbprint, entry] of watched) if (entry.until < now) watched.delete(thumbprint);
    if (watched.size === 0) return;
    try {
      await options.reload();
      await checked;
    } catch (error) {
      options.logger?.warn({ error }, 'Taskwire auth: the issuer signing keys could not be fetched to check the keys of open streams');
    }
    schedule();
  };
  const schedule = () => {
    if (closed || timer !== undefined || options.intervalMs <= 0 || watched.size === 0) return;
    timer = setTimeout(() => void tick(), options.intervalMs);
    (timer as { unref?: () => void }).unref?.();
  };
  const cache = {
    uat: undefined as unknown as number,
    get jwks(): JSONWebKeySet {
      return stored!;
    },
    set jwks(set: JSONWebKeySet) {
      stored = set;
      checked = check(set).catch((error: unknown) => options.logger?.warn({ error }, 'Taskwire auth: the issuer key set could not be checked'));
    },
  };

  return {
    cache,
    close() {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
    },
    async signalOf(key, until) {
      const object = key as object;
      let pending = thumbprints.get(object);
      if (!pending) thumbprints.set(object, (pending = exportJWK(key as CryptoKey).then(calculateJwkThumbprint)));
      const thumbprint = await pending.catch((error: unknown) => {
        options.logger?.warn({ error }, 'Taskwire auth: a signing key could not be read; tokens it verified do not end if it is withdrawn');
        return undefined;
      });
      if (thumbprint === undefined) return new AbortController().signal;
      let entry = watched.get(thumbprint);
      if (!entry) watched.set(thumbprint, (entry = { controller: new AbortController(), until: -Infinity }));
      entry.until = Math.max(entry.until, until ?? Infinity);
      schedule();
      return entry.controller.signal;
    },
  };
}

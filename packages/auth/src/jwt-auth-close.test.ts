import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { jwtAuth } from './jwt-auth.js';
import type { TestIssuer } from './testing.js';
import { startTestIssuer } from './testing.js';

const AUDIENCE = 'https://agent.taskwire.test/close';
/** The key-check interval of these tests: a delay no other timer of the process uses, so its timers can be told apart. */
const INTERVAL_MS = 987_651;

let issuer: TestIssuer;
beforeAll(async () => {
  issuer = await startTestIssuer();
});
afterAll(async () => {
  await issuer?.close();
});

const token = (sub: string) => issuer.sign({ sub, aud: AUDIENCE, exp: Math.floor(Date.now() / 1000) + 600 });

describe('jwtAuth close()', () => {
  it('clears the pending key-check timer at once, and a token verified afterwards schedules none', async () => {
    const setTimer = vi.spyOn(globalThis, 'setTimeout');
    const clearTimer = vi.spyOn(globalThis, 'clearTimeout');
    /** The key-check timers scheduled so far (those with this test's interval). */
    const keyChecks = () => setTimer.mock.calls.flatMap((call, i) => (call[1] === INTERVAL_MS ? [setTimer.mock.results[i]!.value as unknown] : []));
    const cleared = (timer: unknown) => clearTimer.mock.calls.some(([handle]) => handle === timer);
    try {
      const auth = jwtAuth({ issuer: issuer.issuer, audience: AUDIENCE, keyCheckIntervalMs: INTERVAL_MS });
      await auth.verify(await token('first'));
      const [timer, ...others] = keyChecks();
      expect(timer).toBeDefined();
      expect(others).toHaveLength(0);
      expect(cleared(timer)).toBe(false);

      auth.close();
      expect(cleared(timer)).toBe(true);

      // Still a verifier, with no timer of its own any more.
      expect((await auth.verify(await token('second'))).id).toBe('second');
      expect(keyChecks()).toHaveLength(1);
      auth.close(); // idempotent
    } finally {
      setTimer.mockRestore();
      clearTimer.mockRestore();
    }
  });
});

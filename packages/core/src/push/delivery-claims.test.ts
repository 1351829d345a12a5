import { afterEach, expect, it } from 'vitest';
import type { PushSource } from './push-config-store.js';
import { DeliveryClaims } from './delivery-claims.js';

/** A shared config store reduced to its claims: who holds the one config, and what was asked of it, in order. */
function claimStore() {
  const calls: string[] = [];
  /** The config of each claim call (`task/config`), in order. */
  const claimed: string[] = [];
  let holder: string | undefined;
  let answerRenewal: ((ok: boolean) => void) | undefined;
  const state = {
    calls,
    claimed,
    /** Another process takes the claim (ours expired meanwhile). */
    stolen: () => void (holder = 'another process'),
    /** Holds the next claim call until {@link releaseRenewal}. */
    holdNext: false,
    releaseRenewal: (ok: boolean) => answerRenewal?.(ok),
    get holder() {
      return holder;
    },
  };
  const configs = {
    claim: (t: string, c: string, who: string) => {
      calls.push('claim');
      claimed.push(`${t}/${c}`);
      const decide = () => {
        if (holder !== undefined && holder !== who) return false;
        holder = who;
        return true;
      };
      if (!state.holdNext) return Promise.resolve(decide());
      state.holdNext = false;
      return new Promise<boolean>((resolve) => (answerRenewal = (ok) => resolve(ok && decide())));
    },
    release: async (_t: string, _c: string, who: string) => {
      calls.push('release');
      if (holder === who) holder = undefined;
    },
  };
  return { state, source: { configs, tasks: {} } as unknown as PushSource };
}

const open: DeliveryClaims[] = [];
afterEach(async () => Promise.all(open.splice(0).map((c) => c.close())));

/** Resolves once `check` holds (looked at every 2 ms). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 2));
}

it('a renewal that finds the claim taken by another process stops the delivery that held it', async () => {
  const { state, source } = claimStore();
  const claims = new DeliveryClaims(source, () => {}, 30);
  open.push(claims);
  claims.start(60_000);
  let delivered = 0;
  const outcome = await claims.drain('t', 'c', async (holds) => {
    state.stolen();
    // Deliveries go on only while the claim holds: the renewal (every 10 ms) finds it gone.
    while (holds()) {
      delivered++;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  });
  expect(outcome).toBe('taken');
  expect(delivered).toBeGreaterThan(0);
  // It gave nothing up that was not its own.
  expect(state.holder).toBe('another process');
});

it('a release waits for the renewal in flight, so the renewal cannot take the released claim again', async () => {
  const { state, source } = claimStore();
  const claims = new DeliveryClaims(source, () => {}, 30);
  open.push(claims);
  claims.start(60_000);
  expect(await claims.take('t', 'c')).toBe(true);
  state.holdNext = true;
  await until(() => state.calls.length === 2);
  const released = claims.release('t', 'c');
  state.releaseRenewal(true);
  await released;
  expect(state.calls).toEqual(['claim', 'claim', 'release']);
  expect(state.holder).toBeUndefined();
  // And nothing renews it afterwards: two renewal rounds of another claim, taken after the release, pass it by.
  expect(await claims.take('t', 'other')).toBe(true);
  await until(() => state.claimed.filter((k) => k === 't/other').length >= 3);
  expect(state.claimed.filter((k) => k === 't/c')).toHaveLength(2);
});

it('renews every claim it holds in one call when the store can, and stops a drain whose claim the store says is gone', async () => {
  const { state, source } = claimStore();
  const renewals: string[][] = [];
  let gone: string | undefined;
  const configs = {
    ...source.configs,
    renewClaims: async (_holder: string, claims: readonly { taskId: string; configId: string }[]) => {
      renewals.push(claims.map((c) => c.taskId));
      return claims.filter((c) => c.taskId === gone);
    },
  };
  const claims = new DeliveryClaims({ ...source, configs } as PushSource, () => {}, 30);
  open.push(claims);
  expect(await Promise.all(['a', 'b'].map((t) => claims.take(t, 'c')))).toEqual([true, true]);
  claims.start(60_000);
  await until(() => renewals.length > 0);
  expect(renewals[0]).toEqual(['a', 'b']);
  // Only the two takes went one by one.
  expect(state.calls.filter((c) => c === 'claim')).toHaveLength(2);
  gone = 'b';
  await claims.release('a', 'c');
  const outcome = await claims.drain('b', 'c', async (holds) => until(() => !holds()));
  expect(outcome).toBe('taken');
});

it('a holder that could not renew for nine tenths of the claim\'s time to live stops delivering, on its monotonic clock', async () => {
  const { source } = claimStore();
  let now = 5_000;
  const claims = new DeliveryClaims(source, () => {}, 60_000, undefined, () => now);
  open.push(claims);
  // No renewal reaches the store (the timers are not even started): only the clock moves.
  const seen: boolean[] = [];
  const outcome = await claims.drain('t', 'c', async (holds) => {
    now += 53_999;
    seen.push(holds());
    now += 1;
    seen.push(holds(), holds());
  });
  expect(seen).toEqual([true, false, false]);
  expect(outcome).toBe('taken');
});

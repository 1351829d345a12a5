import { describePostgres } from '@taskwire/postgres/testing';
import { expect, it } from 'vitest';
import { until } from './support/fault-kit.js';
import { failover, type Figures } from './support/failover-run.js';

/** How long the old primary answers at the address the replicas use (the fault's length, as an operator's mistake would last). */
const STALE_WINDOW_MS = 3_000;
/** The replicas' sessions on a server. */
const SESSIONS = "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'taskwire%'";

/** What a run through a stale primary must show: nothing acknowledged lost, no event a client saw missing or replaced, no task stuck. */
function expectNothingLost(run: Awaited<ReturnType<typeof failover>>): void {
  const figures: Figures = run.figures;
  expect(run.load.unexpected).toEqual([]);
  expect(figures.ackedLost).toBe(0);
  expect(figures.eventsLost).toBe(0);
  expect(figures.eventsReplaced).toBe(0);
  expect(figures.beyondLog).toBe(0);
  expect(figures.stuck).toBe(0);
  expect(figures.settled).toBe(true);
  expect(run.problems).toEqual([]);
  expect(run.crashed).toEqual([]);
}

describePostgres('the old primary of a failover back un-demoted at the address the replicas use: 2 replica processes under load', () => {
  it('back before the address moves (synchronous, with commits only it holds): nothing it alone holds is published, nothing acknowledged is lost', async () => {
    // The WAL sender paused 300 ms before the kill, the replicas' connections deaf meanwhile: what they commit then is on
    // the old primary only, never acknowledged, and never read by anyone before the kill.
    const run = await failover(true, 'switched address', 300, {
      senderPaused: (_pair, proxy) => void proxy!.deafen(60_000),
      async beforeSwitch(pair, proxy) {
        await pair.restartOldPrimary();
        // New connections hear their answers again; the deaf ones are reset.
        proxy!.deafen(0);
        proxy!.reset();
        // The replicas reach it (their retries, reconnects and checks of commits whose answer was lost) ...
        await until(async () => Number(await pair.psql(pair.primaryPort, SESSIONS)) >= 2, 'the replicas at the old primary', 30_000);
        // ... for a while, before the address moves.
        await new Promise((resolve) => setTimeout(resolve, STALE_WINDOW_MS));
      },
    });
    expectNothingLost(run);
  }, 240_000);

  it('back after the address moved (restarted without synchronous standbys), the address turned back to it: nothing is written there', async () => {
    let before = '';
    const run = await failover(true, 'switched address', 0, {
      async afterFailover(pair, proxy) {
        await pair.restartOldPrimary("-c synchronous_standby_names=''");
        before = await pair.psql(pair.primaryPort, 'SELECT count(*), sum(version) FROM taskwire.tasks');
        proxy!.switchTo({ host: '127.0.0.1', port: pair.primaryPort });
        proxy!.reset();
        await new Promise((resolve) => setTimeout(resolve, STALE_WINDOW_MS));
        proxy!.switchTo({ host: '127.0.0.1', port: pair.standbyPort });
        proxy!.reset();
        // What the old primary holds now is what it held when it came back.
        expect(await pair.psql(pair.primaryPort, 'SELECT count(*), sum(version) FROM taskwire.tasks')).toBe(before);
      },
    });
    expectNothingLost(run);
  }, 240_000);
});

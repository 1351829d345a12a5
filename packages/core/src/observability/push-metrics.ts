import { ATTR } from './attributes.js';
import type { Telemetry } from './telemetry.js';

/**
 * Counts push notification attempts (`taskwire.push.delivery.attempts` by
 * outcome, `taskwire.push.delivery.failures`) and dead letters
 * (`taskwire.push.dead_letters`) on `telemetry`'s meter, when there is one.
 */
export class PushMetrics {
  constructor(private readonly telemetry: Telemetry) {}

  /** One attempt ended: acknowledged with a 2xx, or failed. */
  attempt(acknowledged: boolean): void {
    const instruments = this.telemetry.instruments();
    if (instruments === undefined) return;
    instruments.pushAttempts.add(1, { [ATTR.pushOutcome]: acknowledged ? 'acknowledged' : 'failed' });
    if (!acknowledged) instruments.pushFailures.add(1);
  }

  /** A notification was given up on. */
  deadLetter(): void {
    this.telemetry.instruments()?.pushDeadLetters.add(1);
  }
}

import { afterEach, beforeEach, describe, it } from 'vitest';
import type { CallerIdentity, TransportFixture } from './harness.js';
import { Harness } from './harness.js';
import type { Requirement } from './requirement.js';
import { capabilityRequirements } from './requirements/capabilities.js';
import { pushRequirements } from './requirements/push.js';
import { seedRequirements } from './requirements/seed-sunset-quote.js';
import { sendRequirements } from './requirements/send.js';
import { streamingRequirements } from './requirements/streaming.js';
import { taskRequirements } from './requirements/tasks.js';

/** Every requirement, in the order the suite runs them. */
export const REQUIREMENTS: readonly Requirement[] = [
  ...sendRequirements,
  ...streamingRequirements,
  ...taskRequirements,
  ...capabilityRequirements,
  ...pushRequirements,
  ...seedRequirements,
];

/** Options of {@link runConformance}. */
export interface SuiteOptions {
  readonly caller?: CallerIdentity;
  /**
   * Requirements that do not exist in the protocol version the transport
   * speaks (e.g. over A2A v0.3), by id, each with the reason. They are
   * registered as skipped tests whose name gives the reason; an unknown id
   * is an error.
   */
  readonly skip?: Readonly<Record<string, string>>;
}

/**
 * Registers every requirement as a vitest test run over `fixture`: each test
 * gets a fresh service behind the fixture's wire and is named
 * `<id> (§section): <title>`.
 */
export function runConformance(fixture: TransportFixture, options: SuiteOptions = {}): void {
  const unknown = Object.keys(options.skip ?? {}).filter((id) => !REQUIREMENTS.some((r) => r.id === id));
  if (unknown.length > 0) throw new Error(`runConformance: cannot skip unknown requirements ${unknown.join(', ')}`);
  describe(`A2A requirements over ${fixture.name}`, () => {
    let harness: Harness;
    beforeEach(async () => {
      harness = await Harness.open(fixture, options.caller);
    });
    afterEach(async () => {
      await harness.close();
    });
    for (const req of REQUIREMENTS) {
      const name = `${req.id} (§${req.section}): ${req.title}`;
      const skipped = options.skip?.[req.id];
      if (skipped !== undefined) it.skip(`${name} [not in this protocol version: ${skipped}]`, () => req.run(harness));
      else it(name, () => req.run(harness));
    }
  });
}

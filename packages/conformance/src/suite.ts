import { afterEach, beforeEach, describe, it } from 'vitest';
import type { CallerIdentity, TransportFixture } from './harness.js';
import { Harness } from './harness.js';
import type { Requirement } from './requirement.js';
import { capabilityRequirements } from './requirements/capabilities.js';
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
  ...seedRequirements,
];

/** Options of {@link runConformance}. */
export interface SuiteOptions {
  readonly caller?: CallerIdentity;
}

/**
 * Registers every requirement as a vitest test run over `fixture`: each test
 * gets a fresh service behind the fixture's wire and is named
 * `<id> (§section): <title>`.
 */
export function runConformance(fixture: TransportFixture, options: SuiteOptions = {}): void {
  describe(`A2A requirements over ${fixture.name}`, () => {
    let harness: Harness;
    beforeEach(async () => {
      harness = await Harness.open(fixture, options.caller);
    });
    afterEach(async () => {
      await harness.close();
    });
    for (const req of REQUIREMENTS) {
      it(`${req.id} (§${req.section}): ${req.title}`, () => req.run(harness));
    }
  });
}

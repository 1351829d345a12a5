import { afterEach, beforeEach, describe, it } from 'vitest';
import type { CallerIdentity, SuiteStorage, TransportFixture } from './harness.js';
import { Harness } from './harness.js';
import type { Requirement } from './requirement.js';
import { capabilityRequirements } from './requirements/capabilities.js';
import { extensionRequirements } from './requirements/extensions.js';
import { idempotencyRequirements } from './requirements/idempotency.js';
import { protoJsonRequirements } from './requirements/protojson.js';
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
  ...extensionRequirements,
  ...idempotencyRequirements,
  ...protoJsonRequirements,
  ...pushRequirements,
  ...seedRequirements,
];

/** Options of {@link runConformance}. */
export interface SuiteOptions {
  readonly caller?: CallerIdentity;
  /**
   * Requirements that do not exist in the protocol version the transport
   * speaks (e.g. over A2A v0.3), by id, each with the reason. They are not
   * run; the suite's name lists them with their reasons (the transport's own
   * tests check what replaces them). An unknown id is an error.
   */
  readonly notApplicable?: Readonly<Record<string, string>>;
  /** The stores every service of the run uses (default: memory); the suite's name says which. */
  readonly storage?: SuiteStorage;
}

/**
 * Registers every requirement as a vitest test run over `fixture`: each test
 * gets a fresh service behind the fixture's wire and is named
 * `<id> (§section): <title>`.
 */
export function runConformance(fixture: TransportFixture, options: SuiteOptions = {}): void {
  const excluded = options.notApplicable ?? {};
  const unknown = Object.keys(excluded).filter((id) => !REQUIREMENTS.some((r) => r.id === id));
  if (unknown.length > 0) throw new Error(`runConformance: no requirements named ${unknown.join(', ')}`);
  const note = Object.entries(excluded).map(([id, why]) => `${id}: ${why}`);
  const on = options.storage ? ` on ${options.storage.name}` : '';
  describe(`A2A requirements over ${fixture.name}${on}${note.length ? ` (not applicable: ${note.join('; ')})` : ''}`, () => {
    let harness: Harness;
    beforeEach(async () => {
      harness = await Harness.open(fixture, options.caller, {}, options.storage);
    });
    afterEach(async () => {
      await harness.close();
    });
    for (const req of REQUIREMENTS) {
      if (Object.hasOwn(excluded, req.id)) continue;
      it(`${req.id} (§${req.section}): ${req.title}`, () => req.run(harness));
    }
  });
}

import { inMemoryTransport } from '@taskwire/core';
import { expect, it } from 'vitest';
import { inMemoryFixture } from './harness.js';
import { REQUIREMENTS, runConformance } from './suite.js';

runConformance(inMemoryFixture(inMemoryTransport));

it('every requirement names a spec section and has a unique id', () => {
  const ids = REQUIREMENTS.map((r) => r.id);
  expect(new Set(ids).size).toBe(ids.length);
  for (const r of REQUIREMENTS) expect(r.section).toMatch(/^\d+(\.\d+)*$/);
});

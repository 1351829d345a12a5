import type { Harness } from './harness.js';

/**
 * One requirement of the A2A specification, checked over a transport: an
 * id, the spec section it checks, what it says, and the check itself (which
 * throws when the transport does not meet it).
 */
export interface Requirement {
  readonly id: string;
  readonly section: string;
  readonly title: string;
  run(harness: Harness): Promise<void>;
}

/** Declares a requirement (a typed identity, for readable requirement files). */
export function requirement(id: string, section: string, title: string, run: (harness: Harness) => Promise<void>): Requirement {
  return { id, section, title, run };
}

import type { TransitionError } from '../lifecycle/index.js';

/** The reducer refused an event; `error` says why (thrown by `TaskEngine.apply`, the stored task unchanged). */
export class TransitionFailure extends Error {
  override readonly name = 'TransitionFailure';
  constructor(readonly error: TransitionError) {
    super(error.message);
  }
}

import { MAX_TIMER_MS } from '@taskwire/core';

/**
 * `value` (`fallback` when undefined) checked as the period of a timer: a
 * number of milliseconds from 10 to {@link MAX_TIMER_MS}. Anything else
 * (0, a negative, NaN, Infinity, more than a timer can wait, which node
 * would turn into a timer firing every millisecond) throws a RangeError
 * naming the option `name`.
 */
export function timerInterval(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!(value >= 10 && value <= MAX_TIMER_MS)) throw new RangeError(`${name} must be a number of milliseconds from 10 to ${MAX_TIMER_MS} (got ${value})`);
  return value;
}

/** The longest delay a node timer takes (2^31 - 1 ms, about 24.8 days): node runs a timer given more after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

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

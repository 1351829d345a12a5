/**
 * A small seeded pseudo-random generator (mulberry32), so every suite's
 * choices (kill moments, corpus mutations, action mixes) replay exactly from
 * their seed. Not for cryptography.
 */
export class Random {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max] (both included). */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('Random.pick needs a non-empty array');
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** A string of `length` characters drawn from `alphabet`. */
  string(length: number, alphabet: string): string {
    const chars = [...alphabet];
    let out = '';
    for (let i = 0; i < length; i++) out += this.pick(chars);
    return out;
  }

  /** The seed for a sub-generator, so that independent streams of choices stay reproducible. */
  fork(): Random {
    return new Random(this.int(0, 0xffffffff));
  }
}

/** The seed a suite uses: `RELIABILITY_SEED` from the environment when set (to replay a failure), else `fallback`. */
export function suiteSeed(fallback: number): number {
  const fromEnv = Number(process.env.RELIABILITY_SEED);
  return Number.isInteger(fromEnv) ? fromEnv : fallback;
}

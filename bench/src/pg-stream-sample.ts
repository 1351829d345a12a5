/** What one measured run of `pg-stream-bench` (either mode) yields, per event. */
export interface Sample {
  /** Events received per second. */
  readonly rate: number;
  /** Server CPU per event, µs. */
  readonly serverCpu: number;
  /** PostgreSQL CPU (all its processes) per event, µs. */
  readonly pgCpu: number;
  /** p99 delay from a status update's timestamp to its arrival, ms. */
  readonly p99: number;
  /** Database round trips per event. */
  readonly trips: number;
}

/** What a run counted: `events` received over `seconds`, the CPU seconds spent by the server and PostgreSQL, the delays seen (sorted here), the round trips made. */
export interface Measured {
  readonly events: number;
  readonly seconds: number;
  readonly serverCpuSeconds: number;
  readonly pgCpuSeconds: number;
  readonly delays: number[];
  readonly trips: number;
}

/** The {@link Sample} of a run's counts. */
export function sampleOf(run: Measured): Sample {
  run.delays.sort((a, b) => a - b);
  return {
    rate: run.events / run.seconds,
    serverCpu: (run.serverCpuSeconds * 1e6) / run.events,
    pgCpu: (run.pgCpuSeconds * 1e6) / run.events,
    p99: run.delays[Math.floor(run.delays.length * 0.99)] ?? Number.NaN,
    trips: run.trips / run.events,
  };
}

/** `n` with thousands separators and `digits` decimals. */
export const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/**
 * Where a node process's CPU time went, from Linux `perf` samples rather
 * than V8's `--cpu-prof`: `perf` counts only time on a CPU, while the V8
 * profiler samples wall time, so a process descheduled inside a syscall
 * (a socket write that wakes PostgreSQL on a busy machine) is charged there.
 * The process must run with `node --perf-basic-prof` for JavaScript frames
 * to have names.
 */
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The categories, tried on each sample's frames from the innermost out: the first frame that matches one names the sample's category. */
const CATEGORIES: readonly (readonly [string, RegExp])[] = [
  ['pg driver', /node_modules\/.*\/(pg|pg-protocol|pg-pool)\//],
  ['store (postgres)', /packages\/postgres\/(dist|src)\//],
  ['http adapter', /packages\/server-http\/(dist|src)\//],
  ['core', /packages\/core\/(dist|src)\//],
  ['agent', /reference-agent\//],
  ['node http', /node:_http|node:http/],
  ['node net/stream', /node:net|stream_base|node:internal\/streams/],
];
const GC = /Scavenge|MarkCompact|GCTracer|Heap::|Sweeper|ConcurrentMarking/;

/** The share of a process's samples per category, largest first, with the share spent sending on sockets in the kernel beside them. */
export interface CpuCategories {
  readonly samples: number;
  readonly shares: readonly { readonly category: string; readonly share: number }[];
  /** Samples with the kernel's `tcp_sendmsg` on their stack (a socket write, its loopback delivery included), of all samples. */
  readonly socketSends: number;
}

/**
 * Categorises `perf script -F comm,tid,ip,sym` output (one stack per
 * sample after its header line, innermost frame first): the
 * garbage collector when the innermost frame is one of its, else the
 * first frame that matches a category, else `other`.
 */
export function categorise(perfScript: string): CpuCategories {
  const counts = new Map<string, number>();
  let samples = 0;
  let sends = 0;
  for (const sample of perfScript.split(/\n(?=\S)/)) {
    const frames = sample
      .split('\n')
      .slice(1)
      .map((line) => line.trim())
      .filter(Boolean);
    if (frames.length === 0) continue;
    samples++;
    if (frames.some((frame) => /\btcp_sendmsg\b/.test(frame))) sends++;
    let category = GC.test(frames[0]!) ? 'gc' : undefined;
    for (const frame of frames) {
      if (category) break;
      category = CATEGORIES.find(([, pattern]) => pattern.test(frame))?.[0];
    }
    counts.set(category ?? 'other', (counts.get(category ?? 'other') ?? 0) + 1);
  }
  const shares = [...counts].map(([category, n]) => ({ category, share: n / Math.max(1, samples) })).sort((a, b) => b.share - a.share);
  return { samples, shares, socketSends: sends / Math.max(1, samples) };
}

/**
 * Samples process `pid` with `perf record` (call stacks, 499 Hz) for
 * `seconds`, then categorises the samples; `file` is where perf writes
 * them. Needs `perf` on the PATH and the permission to profile the process.
 */
export async function recordCategories(pid: number, seconds: number, file: string): Promise<CpuCategories> {
  const recorder = spawn('perf', ['record', '-q', '-F', '499', '-g', '-p', String(pid), '-o', file, '--', 'sleep', String(seconds)], { stdio: 'ignore' });
  const code = await new Promise<number | null>((resolve, reject) => recorder.once('error', reject).once('exit', resolve));
  if (code !== 0) throw new Error(`perf record exited with ${code}`);
  const { stdout } = await run('perf', ['script', '-i', file, '-F', 'comm,tid,ip,sym'], { maxBuffer: 1 << 30 });
  return categorise(stdout);
}

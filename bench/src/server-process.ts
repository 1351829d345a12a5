import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** A benchmarked server running in its own process. */
export interface ServerProcess {
  readonly kind: string;
  /** What the server printed after `READY ` (a port or a URL), mapped by the caller. */
  readonly url: string;
  /** The process id (to signal it: SIGKILL, SIGSTOP). */
  readonly pid: number | undefined;
  /** CPU seconds (user + system) the server process has used so far; NaN where /proc is not available. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

/** CPU seconds a process has used, from /proc/<pid>/stat (utime + stime, in clock ticks of 1/100 s on Linux). */
export function cpuSecondsOf(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/**
 * Starts `script <kind>` with this process's node flags (so tsx and the
 * `source` condition apply), waits for it to print `READY <token>`, and
 * resolves with `url = toUrl(token)`. `stop` sends SIGTERM and waits for exit.
 * With `$BENCH_CPU_PROF` set to a directory, the server writes a CPU profile
 * there when it exits (`node --cpu-prof`), for finding where its time goes.
 */
export function startServerProcess(
  script: string,
  kind: string,
  toUrl: (token: string) => string,
  env: Record<string, string> = {},
): Promise<ServerProcess> {
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child: ChildProcess = spawn(process.execPath, [...profile, ...process.execArgv, script, kind], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const onExit = (code: number | null) => reject(new Error(`the ${kind} server (${script}) exited (${code}) before it was ready`));
    child.once('exit', onExit);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const ready = /READY (\S+)/.exec(out);
      if (!ready) return;
      child.off('exit', onExit);
      child.stdout!.removeAllListeners('data');
      child.stdout!.resume();
      resolve({
        kind,
        url: toUrl(ready[1]!),
        pid: child.pid,
        cpuSeconds: () => cpuSecondsOf(child.pid),
        stop: () =>
          new Promise<void>((done) => {
            // A process killed by a signal has no exit code, only a signal code: it has exited all the same.
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

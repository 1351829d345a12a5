// Starting and stopping a hosting app's server process for the hosting tests.
import { spawn, type ChildProcess } from 'node:child_process';

/** A server process started in its own process group, and how to stop it (the group, with what it forked). */
export interface Served {
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts `command` in `cwd` and resolves once its output includes `ready`;
 * rejects with its output when it exits first or outlasts `limitMs`.
 */
export function serve(command: string, args: readonly string[], cwd: string, env: Readonly<Record<string, string>>, ready: string, limitMs = 120_000): Promise<Served> {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }
    await exited;
  };
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => void stop().then(() => reject(new Error(`${command} did not print "${ready}" within ${limitMs} ms:\n${output}`))), limitMs);
    const check = () => {
      if (!output.includes(ready)) return;
      clearTimeout(timer);
      resolve({ child, stop });
    };
    child.stdout!.on('data', (chunk) => ((output += chunk), check()));
    child.stderr!.on('data', (chunk) => ((output += chunk), check()));
    child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`${command} exited (${code}) before it printed "${ready}":\n${output}`))));
  });
}

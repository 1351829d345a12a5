// Starting and stopping a hosting app's server process for the hosting tests.
import { spawn, type ChildProcess } from 'node:child_process';

/** A server process started in its own process group, and how to stop it (the group, with what it forked). */
export interface Served {
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts `command` in `cwd` and resolves once it is ready: its output
 * includes `ready`, or, when `ready` is a URL (for a server that prints
 * nothing, like workerd), that URL answers 200. Rejects with its output
 * when it exits first or outlasts `limitMs`.
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
  let settled = false;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => void stop().then(() => reject(new Error(`${command} was not ready ("${ready}") within ${limitMs} ms:\n${output}`))), limitMs);
    const done = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ child, stop });
    };
    const check = () => void (output.includes(ready) && done());
    child.stdout!.on('data', (chunk) => ((output += chunk), check()));
    child.stderr!.on('data', (chunk) => ((output += chunk), check()));
    child.once('exit', (code) => ((settled = true), clearTimeout(timer), reject(new Error(`${command} exited (${code}) before it was ready ("${ready}"):\n${output}`))));
    if (/^https?:/.test(ready)) {
      const poll = async () => {
        while (!settled) {
          if (await fetch(ready).then((r) => r.ok, () => false)) return done();
          await new Promise((resume) => setTimeout(resume, 100));
        }
      };
      void poll();
    }
  });
}

// Runs the docs' commands as a user would: with bash, from the repository
// root, in a process group of their own (so that Ctrl+C reaches npm and the
// node process it starts alike).
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** What a finished command printed, and its exit code. */
export interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A command that serves until stopped. */
export interface Served {
  readonly command: string;
  /** What it printed on stdout so far. */
  stdout(): string;
  /**
   * Ctrl+C (SIGINT to its process group), or `signal` (SIGTERM: what an
   * orchestrator sends); resolves once it has exited (SIGKILL if it has not after 30 s).
   */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

function spawnShell(command: string, cwd: string, env: NodeJS.ProcessEnv): ChildProcess {
  return spawn('bash', ['-c', command], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Runs `command` to its end. */
export function runCommand(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  const child = spawnShell(command, cwd, env);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c) => (stdout += c));
  child.stderr!.on('data', (c) => (stderr += c));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

/** Starts `command` and resolves once its stdout holds `ready`; rejects, with what it printed, if it exits first. */
export function serveCommand(command: string, cwd: string, env: NodeJS.ProcessEnv, ready: string): Promise<Served> {
  const child = spawnShell(command, cwd, env);
  let stdout = '';
  let stderr = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, name);
    } catch {
      // already gone
    }
  };
  const served: Served = {
    command,
    stdout: () => stdout,
    async stop(name: NodeJS.Signals = 'SIGINT') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      signal(name);
      const timer = setTimeout(() => signal('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (c) => (stderr += c));
    child.stdout!.on('data', (c) => {
      stdout += c;
      if (stdout.includes(ready)) resolve(served);
    });
    child.once('exit', (code) => reject(new Error(`\`${command}\` exited (${code}) before it printed "${ready}":\n${stdout}${stderr}`)));
  });
}

function listenable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A free port of 127.0.0.1 whose next port is free too (the reference agent's gRPC takes HTTP port + 1 by default). */
export async function freePortPair(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port: p } = server.address() as { port: number };
        server.close(() => resolve(p));
      });
    });
    if (port < 65535 && (await listenable(port + 1))) return port;
  }
}

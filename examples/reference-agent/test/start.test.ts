import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, utimesSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const repo = join(import.meta.dirname, '..', '..', '..');
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

interface Started {
  readonly child: ChildProcess;
  readonly card: string;
  /** Everything written so far on stdout and stderr. */
  output(): { stdout: string; stderr: string };
}

/** Runs `scripts/start.mjs` (what `npm start` runs) on free ports and resolves once the agent says it is ready. */
function start(): Promise<Started> {
  const child = spawn(process.execPath, ['scripts/start.mjs', '--port', '0', '--grpc-port', '0', '--store', 'memory'], { cwd: repo });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`exited with ${code} before it was ready:\n${stdout}${stderr}`)));
    child.stdout!.on('data', (chunk) => {
      stdout += chunk;
      if (stdout.includes('Press Ctrl+C to stop.')) {
        resolve({ child, card: /card\s+(\S+)/.exec(stdout)![1]!, output: () => ({ stdout, stderr }) });
      }
    });
  });
}

/** The processes whose parent is `pid` (`ps` works on Linux and macOS). */
function childrenOf(pid: number): number[] {
  return execFileSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number))
    .filter(([, parent]) => parent === pid)
    .map(([child]) => child!);
}

async function stop(agent: Started): Promise<number | null> {
  const exit = new Promise<number | null>((resolve) => agent.child.once('exit', (code) => resolve(code)));
  agent.child.kill('SIGINT');
  return exit;
}

describe('npm start (scripts/start.mjs)', () => {
  it('runs the built agent in its own node process, with no child process, and stops calmly on Ctrl-C', async () => {
    const agent = await start();
    expect(existsSync(join(repo, 'examples/reference-agent/dist/main.js'))).toBe(true);
    const card = await (await fetch(agent.card)).json();
    expect(card.name).toBe('Taskwire reference agent');
    expect(childrenOf(agent.child.pid!)).toEqual([]);
    expect(await stop(agent)).toBe(0);
    const { stdout, stderr } = agent.output();
    expect(stdout).toContain('SIGINT: stopping');
    expect(stderr).toBe('');
  }, 60_000);

  it('names a taken port and its option, without grpc-js\'s own error line', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = String((taken.address() as AddressInfo).port);
    try {
      const child = spawn(process.execPath, ['scripts/start.mjs', '--port', '0', '--grpc-port', port, '--store', 'memory'], { cwd: repo });
      children.push(child);
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code).toBe(1);
      expect(stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
      expect(stderr).toContain('--grpc-port <n>');
      expect(stderr).not.toContain('No address added');
    } finally {
      taken.close();
    }
  }, 60_000);

  it('builds only when a source is newer than the build', async () => {
    const fresh = await start(); // builds if an earlier change left the build stale
    await stop(fresh);
    const again = await start();
    expect(again.output().stdout).not.toContain('Building the reference agent');
    await stop(again);

    const source = join(repo, 'examples/reference-agent/src/quotes.ts');
    const later = new Date(Date.now() + 2_000);
    utimesSync(source, later, later);
    const rebuilt = await start();
    expect(rebuilt.output().stdout).toContain('Building the reference agent');
    await stop(rebuilt);
  }, 90_000);
});

import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The repository root (the reference agent is started from there). */
export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
/** `pnpm start`'s entry point. */
export const AGENT_MAIN = fileURLToPath(new URL('../../../../examples/reference-agent/src/main.ts', import.meta.url));

/** The `--import` URL of tsx as installed in the repository at `root`. */
export function tsxLoader(root: string): string {
  return pathToFileURL(createRequire(join(root, 'package.json')).resolve('tsx')).href;
}

const TSX = tsxLoader(REPO_ROOT);
const HEAP_PROBE = new URL('./heap-probe.ts', import.meta.url).href;

/** The URLs the reference agent prints when it is ready. */
export interface AgentUrls {
  readonly jsonRpc: string;
  readonly rest: string;
  readonly ws: string;
  readonly grpc: string;
  readonly card: string;
}

/** The server process's memory, measured in it after two full GCs (see heap-probe.ts). */
export interface HeapSample {
  /** False when the process could not collect garbage (no `--expose-gc`): the figures are then noisy. */
  readonly collected: boolean;
  readonly heapUsed: number;
  readonly external: number;
  readonly arrayBuffers: number;
  readonly rss: number;
  /** `process.getActiveResourcesInfo()`: open sockets (`TCPSocketWrap`), timers, ... */
  readonly resources: readonly string[];
}

/** A reference agent running as a child process (`node --import tsx examples/reference-agent/src/main.ts ...`). */
export interface AgentProcess {
  readonly child: ChildProcess;
  /** Resolves with the URLs once the agent printed them; rejects if it exits first. */
  readonly ready: Promise<AgentUrls>;
  /** Resolves when the process has exited (with its code, or the signal that ended it). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything the process wrote to stderr so far (its logger writes `warn:` and `error:` lines there). */
  stderr(): string;
  /** Measures the server's memory (needs `probe: true`). */
  heap(): Promise<HeapSample>;
  /** SIGKILL, and resolves once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM (a clean stop), and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** How {@link spawnAgent} starts the agent. */
export interface SpawnOptions {
  /** `--store memory`, `--store file:DIR`, `--store sqlite:FILE` or `--store <url>` (a `postgres://` URL). */
  readonly store: 'memory' | { readonly dir: string } | { readonly sqlite: string } | { readonly url: string };
  /** The Node binary to run it with (default: this process's; a SQLite store needs Node 22.5 or later). */
  readonly node?: string;
  /** The HTTP and gRPC ports (default 0: free ones); a restarted replica takes its old ones again. */
  readonly port?: number;
  readonly grpcPort?: number;
  /** More command-line options, after the others. */
  readonly args?: readonly string[];
  readonly apiKey?: string;
  /** Preload the heap probe and pass `--expose-gc` (for memory measurements over IPC). */
  readonly probe?: boolean;
  /** Another checkout of this repository (an earlier release, installed) whose reference agent and tsx to run (default: this one). */
  readonly root?: string;
}

/**
 * Starts the reference agent exactly as `pnpm start` runs it, on free ports
 * of 127.0.0.1, as a separate process: its crashes, hangs and memory are its
 * own. With `probe`, the heap probe answers {@link AgentProcess.heap}.
 */
export function spawnAgent(options: SpawnOptions): AgentProcess {
  const store =
    options.store === 'memory' ? 'memory' : 'url' in options.store ? options.store.url : 'sqlite' in options.store ? `sqlite:${options.store.sqlite}` : `file:${options.store.dir}`;
  const args = [
    ...(options.probe ? ['--expose-gc'] : []),
    '--import',
    options.root === undefined ? TSX : tsxLoader(options.root),
    ...(options.probe ? ['--import', HEAP_PROBE] : []),
    '--conditions=@taskwire/source',
    options.root === undefined ? AGENT_MAIN : join(options.root, 'examples/reference-agent/src/main.ts'),
    '--port',
    String(options.port ?? 0),
    '--grpc-port',
    String(options.grpcPort ?? 0),
    '--host',
    '127.0.0.1',
    '--store',
    store,
    ...(options.apiKey ? ['--api-key', options.apiKey] : []),
    ...(options.args ?? []),
  ];
  const child = spawn(options.node ?? process.execPath, args, { cwd: options.root ?? REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const ready = new Promise<AgentUrls>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      stdout += chunk;
      if (!stdout.includes('Press Ctrl+C to stop.')) return;
      const url = (label: string) => new RegExp(`${label}\\s+(\\S+)`).exec(stdout)?.[1] ?? '';
      resolve({ jsonRpc: url('JSON-RPC'), rest: url('HTTP\\+JSON'), ws: url('WebSocket'), grpc: url('gRPC'), card: url('card') });
    });
    void exited.then(({ code, signal }) => reject(new Error(`the reference agent exited (${signal ?? code}) before it was ready:\n${stderr}`)));
  });
  ready.catch(() => undefined);
  let requests = 0;
  const pending = new Map<number, (sample: HeapSample) => void>();
  child.on('message', (message: HeapSample & { type: string; id: number }) => {
    if (message.type === 'heap') pending.get(message.id)?.(message);
    pending.delete(message.id);
  });
  return {
    child,
    ready,
    exited,
    stderr: () => stderr,
    heap() {
      if (!options.probe) return Promise.reject(new Error('spawnAgent: pass probe: true to measure the heap'));
      const id = ++requests;
      return new Promise<HeapSample>((resolve, reject) => {
        pending.set(id, resolve);
        exited.then(() => reject(new Error('the reference agent exited while its heap was being measured')), reject);
        child.send({ type: 'heap', id });
      });
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return (await exited).code;
    },
  };
}

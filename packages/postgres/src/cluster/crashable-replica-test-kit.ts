import { fileURLToPath } from 'node:url';
import { spawnSource } from '../source-process-test-kit.js';

const MAIN = fileURLToPath(new URL('./crashable-replica-main.ts', import.meta.url));

/** A replica running in a process of its own (see crashable-replica-main.ts), holding the leases of its tasks. */
export interface CrashableReplica {
  /** Its coordinator's process id: the lease holder of its tasks and of its heartbeat row. */
  readonly processId: string;
  /** The ids of the tasks whose lease it reported lost, in order. */
  readonly lost: readonly string[];
  /** Kills the process (SIGKILL: no clean stop, no handover) and resolves once it exited. Idempotent. */
  kill(): Promise<void>;
}

/**
 * Starts a replica process on `schema` of the database at `url` that
 * claims and holds the leases of `taskIds` (WORKING rows it inserts) with
 * leases of `leaseTtlMs`, its store reading the contract steps again every
 * `contractRefreshMs` (the store's default when not given); resolves once
 * it holds them, rejects with its stderr if it exits before.
 */
export function startCrashableReplica(
  url: string,
  schema: string,
  leaseTtlMs: number,
  taskIds: readonly string[],
  contractRefreshMs?: number,
): Promise<CrashableReplica> {
  const child = spawnSource(MAIN, [JSON.stringify({ url, schema, leaseTtlMs, taskIds, contractRefreshMs })], process.env);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lost: string[] = [];
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  return new Promise((resolve, reject) => {
    let stderr = '';
    let pending = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdout.on('data', (chunk) => {
      pending += chunk;
      for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
        const [word, value = ''] = pending.slice(0, end).split(' ');
        pending = pending.slice(end + 1);
        if (word === 'holding') resolve({ processId: value, lost, kill });
        if (word === 'lost') lost.push(value);
      }
    });
    child.once('error', reject);
    // After `holding`, this rejection is a no-op.
    child.once('exit', () => reject(new Error(`the replica process exited before holding its tasks: ${stderr}`)));
  });
}

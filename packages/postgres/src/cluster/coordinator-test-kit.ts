import type { CoordinatorHost } from '@taskwire/core';
import type pg from 'pg';

/** Resolves once `check` holds, looking again every 5 ms (no fixed sleep); rejects after `limitMs`. */
export async function until(check: () => boolean | Promise<boolean>, what: string, limitMs = 10_000): Promise<void> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > limitMs) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A service stand-in that records the tasks handed to it. */
export function recordingHost(): CoordinatorHost & { settled: [string, number][] } {
  const settled: [string, number][] = [];
  return { settled, settleOrphan: async (taskId, epoch) => void settled.push([taskId, epoch]) };
}

/** Inserts a task row into schema `S` (quoted) as the store writes it, at version 3, with a lease when given. */
export function insertTask(pool: pg.Pool, S: string, id: string, state: string, lease?: { holder: string; expiresInMs: number; epoch?: number }): Promise<unknown> {
  return pool.query(
    `INSERT INTO ${S}.tasks (id, owner, context_id, state, status_key, version, last_sequence, task, lease_holder, lease_epoch, lease_expires_at)
     VALUES ($1, '', 'c', $2, 'k', 3, 3, '{}', $3, $4, now() + $5::double precision * interval '1 millisecond')`,
    [id, state, lease?.holder ?? null, lease ? (lease.epoch ?? 1) : null, lease?.expiresInMs ?? null],
  );
}

/** A logger that keeps the messages of its error lines. */
export function recordingLogger(): { errors: string[]; warn(): void; error(fields: unknown, message?: string): void } {
  const errors: string[] = [];
  return { errors, warn: () => undefined, error: (_fields, message) => void errors.push(message ?? '') };
}

import { isTerminal, LeaseLostError, OwnerMismatchError, VersionConflictError, type CommitRequest, type TaskState } from '@taskwire/core';

/** A commit was refused because the task is terminal: a finished task's row never changes. Re-read it (a {@link VersionConflictError}). */
export class TerminalTaskError extends VersionConflictError {
  constructor(taskId: string, version: number, state: TaskState) {
    super(taskId, version, version);
    this.message = `Task ${taskId} is ${state}: a finished task never changes`;
  }
}

/** The columns of a task's row that say why a commit of it changed nothing (`undefined`: no such row). */
export interface ProbedRow {
  readonly version: number;
  readonly owner: string;
  readonly state: TaskState;
  readonly lease_holder: string | null;
  readonly lease_epoch: number | null;
}

/**
 * Why `request` changed nothing, given its task's row read after the fact:
 * another owner's task, a finished task, a lease held by someone else (or
 * live, for a claim `ifFree`), else a version conflict.
 */
export function refusalOf(request: CommitRequest, row: ProbedRow | undefined): Error {
  const id = request.task.id;
  if (row === undefined) return new VersionConflictError(id, request.expectedVersion, 0);
  if (row.owner !== request.owner) return new OwnerMismatchError(id);
  // Refused at the version it read: the row's state or lease says why.
  if (row.version === request.expectedVersion) {
    if (isTerminal(row.state)) return new TerminalTaskError(id, row.version, row.state);
    const lease = request.lease;
    if (lease?.kind === 'hold' && (row.lease_holder !== lease.holder || row.lease_epoch !== lease.epoch)) return new LeaseLostError(id);
    // A claim `ifFree`: another holder's lease is live.
    if (lease?.kind === 'claim' && lease.ifFree === true) return new LeaseLostError(id);
  }
  return new VersionConflictError(id, request.expectedVersion, row.version);
}

/**
 * What a commit says about the lease of its task when several processes
 * share one store (a cluster). The process that runs a task's agent holds
 * the task's lease; the lease's epoch is the fencing token that keeps a
 * process which lost the lease from writing. Stores shared by several
 * processes honour these conditions in the same conditional write as the
 * version check; in-process stores (memory, file) ignore them.
 *
 * - `claim`: the commit starts a run in `holder`: the lease becomes
 *   `holder`'s with a new epoch, and it expires `ttlMs` after the commit
 *   unless renewed. The epoch is the commit result's `leaseEpoch` when the
 *   store gives one (an epoch never repeats for a task id, even one deleted
 *   and created again), else the version the commit produces.
 *   With `ifFree`, only when no other holder has a lease on the task, and
 *   not at `heldEpoch` (an epoch the claiming process held already).
 * - `hold`: the commit belongs to the run of `holder` at `epoch`: it is
 *   refused with `LeaseLostError` (service/coordination.ts) unless the task's lease is still
 *   exactly that one; it renews the lease for `ttlMs`.
 *
 * Whatever the condition (and without one), a commit that leaves the task
 * terminal releases its lease: nobody runs a finished task. A commit that
 * leaves it interrupted (input-required, auth-required) keeps the lease
 * with its run, which may go on by itself (an agent that got a credential
 * out of band); an interrupted task is never taken over, and the claim of
 * the run a new message starts supersedes the lease.
 */
export type LeaseCondition =
  | {
      readonly kind: 'claim';
      readonly holder: string;
      readonly ttlMs: number;
      /**
       * Claims only a task nobody else runs: the commit is refused with
       * `LeaseLostError` (service/coordination.ts) while the task's lease is
       * another holder's, live or expired (an expired lease may be a paused
       * run that started already: its task is left to the take-over sweep,
       * which fails it or runs it again as `rerunOrphans` allows, so a
       * message never runs twice unless that allows it). A lease of `holder`
       * itself is taken (its process knows no run of its own holds it), as
       * is a task with no lease, unless it is at {@link heldEpoch}. Used to
       * start the run a lost answer left owed.
       */
      readonly ifFree?: boolean | undefined;
      /**
       * With `ifFree`: the latest epoch at which `holder` held the task's
       * lease (epochs only grow, so a lease of `holder` at an epoch it held
       * is at this one). Such a lease is refused too: its run started here
       * and stopped (given up after a stall, or a take-over whose settling
       * failed), and the task is the self-sweep's to settle, so a message
       * never runs twice here unless `rerunOrphans` allows it. So is a lease
       * of `holder` that a take-over made (its answer lost; the task's run
       * may have started elsewhere). A lease of `holder` at another epoch,
       * made by a claim, is a claim whose answer this process never got: it
       * is taken.
       */
      readonly heldEpoch?: number | undefined;
    }
  | { readonly kind: 'hold'; readonly holder: string; readonly epoch: number; readonly ttlMs: number };


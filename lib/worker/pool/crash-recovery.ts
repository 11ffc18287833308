import type { LoggerService } from '@nestjs/common';

import type { TaskBackend } from '../../core/task-backend.interface';
import type { TaskErrorRecord, TaskRecord } from '../../core/task-record.interface';
import { cancelledRecord } from '../../lifecycle/cancelled-record';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import { childSessionsNotEnded, crashRecovered, crashRecoveryFailed } from '../worker.messages';
import { sleep } from '../../utils/sleep.util';
import { partOutcomes } from '../../core/retry-policy';
import { childCrashed, endAttempt, timeLimitOverrun } from '../../lifecycle/ended-attempt';
import type { HardStop } from '../worker-ipc';
import { leasesUnder } from '../leases-under';

export interface CrashRecoveryDeps {
  readonly backend: TaskBackend;
  readonly logger: LoggerService;
  /** This machine's name: the first part of the children's worker ids (`host:pid-slot`). */
  readonly host: string;
  readonly queues: readonly string[];
  /** Tasks the recovery stored final: how many, and how many of them FAILED. */
  readonly counted: (done: number, failed: number) => void;
  /**
   * How long after the first search the running tasks are searched again
   * for a crashed child's leases (ms), where its store cannot end its sessions.
   */
  readonly lateSearchMs?: number;
}

/**
 * A store may still be running a lease call of a child that was killed (a
 * SQL server notices the closed connection only when it sends the reply, so
 * the lease commits after the death). The crashed child's leases are
 * searched again once its store ended its sessions (`pools.endSessionsOf`),
 * so nothing of it can commit any more; where the store cannot (it has no
 * such method, or the app names its Postgres connections itself), this long
 * after the first search instead: a bound a slower call outlives, its lease
 * then left RUNNING until its TTL. Any lease found by that search was never
 * received, so is given back.
 */
export const LATE_LEASE_SEARCH_MS = 1000;

/** How long a store is given to end a crashed child's sessions before the timed search is relied on. */
export const SESSIONS_END_WAIT_MS = 10_000;

/** One dead child's tasks to recover. */
export interface DeadChild {
  readonly pid: number;
  /** The ids its journal still held. */
  readonly held: readonly string[];
  /**
   * Those of them its journal says never started (prefetched): given back as
   * if never leased, whatever else happens to the others. Trusted only when
   * the journal was written whole.
   */
  readonly unstarted?: readonly string[];
  /** How it died, for the errors. */
  readonly cause: string;
  /** Search the running tasks for leases it never reported (it crashed, and may have had some). */
  readonly searchLeases: boolean;
  /**
   * Its journal was written whole, so a lease found by the search and not in
   * it was never received, and never started. Else such a lease may have run.
   */
  readonly journalWhole: boolean;
  /** Put its tasks back in their queues instead of ending their attempts (the pool is stopping). */
  readonly release: boolean;
  /**
   * The task it was killed to stop (a hard stop), never released: stored
   * CANCELLED for a cancel; for a time limit, its attempt ended with
   * TaskTimeoutError and retried as its policy allows.
   */
  readonly hardStopped?: HardStop | null;
}

/**
 * A child died holding tasks: end their attempts now with WorkerCrashed
 * (retried when their policy allows, FAILED otherwise), or put them back in
 * their queue when the pool is stopping, instead of leaving them RUNNING
 * until the reaper takes their lease back. Those it had leased ahead and
 * never started (prefetch) go back as if never leased: never failed. A task the child acknowledged
 * before dying is no longer RUNNING and is left as it is. After a crash the
 * running tasks are also searched for leases of this child's worker ids,
 * which covers an acquire whose reply arrived but whose ids the child never
 * got to journal.
 *
 * @internal
 */
export class CrashRecovery {
  private readonly underWay = new Set<Promise<void>>();

  constructor(private readonly deps: CrashRecoveryDeps) {}

  /** Starts recovering `child`'s tasks. */
  recover(child: DeadChild): void {
    const recovery = this.run(child);
    this.underWay.add(recovery);
    void recovery.finally(() => this.underWay.delete(recovery));
  }

  /** Resolves once every recovery started so far has ended. */
  async settled(): Promise<void> {
    await Promise.all(this.underWay);
  }

  private async run(child: DeadChild): Promise<void> {
    // Ended beside the first search: the late one waits for both.
    const ended = child.searchLeases ? this.sessionsEnded(child.pid) : null;
    const seen = await this.recoverNow(child);
    if (ended === null) return;
    if (!(await ended)) await sleep(this.deps.lateSearchMs ?? LATE_LEASE_SEARCH_MS);
    await this.searchLate(child, seen);
  }

  /**
   * Whether the store ended every session of the dead child `pid`, so no
   * call of it can commit any more; false where it cannot tell.
   */
  private async sessionsEnded(pid: number): Promise<boolean> {
    const { backend, logger } = this.deps;
    try {
      return (await backend.pools.endSessionsOf?.(pid, SESSIONS_END_WAIT_MS)) ?? false;
    } catch (error) {
      logger.warn(childSessionsNotEnded(pid, error));
      return false;
    }
  }

  /** Recovers what the journal and a first search find; the ids it handled. */
  private async recoverNow(child: DeadChild): Promise<ReadonlySet<string>> {
    const { pid, held, cause, release } = child;
    const { backend, logger } = this.deps;
    const seen = new Set(held);
    try {
      const byId = new Map<string, TaskRecord>();
      const found = await Promise.allSettled(held.map((id) => backend.tasks.getResult(id)));
      for (const outcome of found) {
        if (outcome.status === 'fulfilled') byId.set(outcome.value.id, outcome.value);
      }
      const unstarted = await this.unreported(child, byId);
      for (const id of [...byId.keys(), ...unstarted.map((r) => r.id)]) seen.add(id);
      const live = this.takeUnstarted(child, byId, unstarted);
      const stop = child.hardStopped ?? null;
      const stopped = live.filter((r) => r.id === stop?.id);
      const running = live.filter((r) => r.id !== stop?.id);
      if (stopped.length > 0 && stop?.reason === 'cancel')
        await backend.leases.acknowledge(stopped.map((r) => cancelledRecord(r, new Date())));
      if (stopped.length > 0 && stop?.reason === 'timeout') {
        await this.endAttempts(stopped, (r) =>
          timeLimitOverrun(r.id, r.task.name, r.task.timeoutMs ?? 0),
        );
      }
      // Never started, so never failed: back in their queues with no attempt counted.
      const unleased = unstarted.length > 0 ? await backend.leases.unlease(unstarted) : 0;
      if (running.length === 0) {
        if (unleased > 0) logger.warn(crashRecovered(pid, { unleased }));
        return seen;
      }
      if (release) {
        logger.warn(
          crashRecovered(pid, { unleased, released: await backend.leases.release(running) }),
        );
        return seen;
      }
      const { failed, retried } = await this.endAttempts(running, (r) =>
        childCrashed(r.id, r.task.name, pid, cause),
      );
      logger.warn(crashRecovered(pid, { failed, retried, unleased }));
    } catch (error) {
      logger.error(crashRecoveryFailed(pid, held, error));
    }
    return seen;
  }

  /**
   * The leases of the crashed child that its store committed after the first
   * search (`seen` holds what that recovery handled): never received, so
   * never started, and given back to their queues.
   */
  private async searchLate(child: DeadChild, seen: ReadonlySet<string>): Promise<void> {
    const { backend, logger } = this.deps;
    try {
      const late = (await this.leasedTo(child.pid)).filter((r) => !seen.has(r.id));
      if (late.length === 0) return;
      logger.warn(crashRecovered(child.pid, { unleased: await backend.leases.unlease(late) }));
    } catch (error) {
      logger.error(crashRecoveryFailed(child.pid, [], error));
    }
  }

  /**
   * Ends the attempts of `records` with `errorOf` each, as the lifecycle
   * decides (retried or FAILED), and counts the FAILED ones as done.
   */
  private async endAttempts(
    records: readonly TaskRecord[],
    errorOf: (record: TaskRecord) => TaskErrorRecord,
  ): Promise<{ failed: number; retried: number }> {
    const { backend } = this.deps;
    const now = new Date();
    const { final, retries } = partOutcomes(
      records.map((record) =>
        endAttempt(
          { id: record.id, queue: record.task.queue, record },
          errorOf(record),
          now,
          backend.alias,
        ),
      ),
    );
    const [outcomes, retryOutcomes] = await Promise.all([
      final.length > 0 ? backend.leases.acknowledge(final) : [],
      retries.length > 0 ? backend.leases.retry(retries) : [],
    ]);
    const failed = outcomes.filter((o) => o === 'acknowledged').length;
    this.deps.counted(failed, failed);
    return { failed, retried: retryOutcomes.filter((o) => o === 'retried').length };
  }

  /**
   * The leases of a crashed child that its journal does not hold: never
   * received when the journal is whole (returned), else added to `byId` as
   * tasks that may have run.
   */
  private async unreported(child: DeadChild, byId: Map<string, TaskRecord>): Promise<TaskRecord[]> {
    if (!child.searchLeases) return [];
    const journaled = new Set(child.held);
    const unstarted: TaskRecord[] = [];
    for (const record of await this.leasedTo(child.pid)) {
      if (journaled.has(record.id) || !child.journalWhole) byId.set(record.id, record);
      else unstarted.push(record);
    }
    return unstarted;
  }

  /**
   * The RUNNING tasks of `byId` that still hold this child's lease, but for
   * those the journal says never started, which go to `unstarted`. One leased
   * again by another worker since (the journal's `-` line for it was still
   * waiting to be written) is that worker's: left alone.
   */
  private takeUnstarted(
    child: DeadChild,
    byId: ReadonlyMap<string, TaskRecord>,
    unstarted: TaskRecord[],
  ): TaskRecord[] {
    const waiting = new Set(child.journalWhole ? child.unstarted : []);
    const prefix = this.prefixOf(child.pid);
    const live: TaskRecord[] = [];
    for (const record of byId.values()) {
      const last = record.workerIds[record.workerIds.length - 1];
      if (record.status !== TaskResultStatus.RUNNING || !last?.startsWith(prefix)) continue;
      if (waiting.has(record.id)) unstarted.push(record);
      else live.push(record);
    }
    return live;
  }

  private prefixOf(pid: number): string {
    return `${this.deps.host}:${pid}-`;
  }

  /** RUNNING tasks whose latest worker id is one of this child's slots (`host:pid-slot`). */
  private leasedTo(pid: number): Promise<TaskRecord[]> {
    return leasesUnder(this.deps.backend, this.deps.queues, this.prefixOf(pid));
  }
}

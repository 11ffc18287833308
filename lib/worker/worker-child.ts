import type { LoggerService } from '@nestjs/common';
import { performance } from 'node:perf_hooks';

import { failedAttempt, isRetry, nextAttempt } from '../core/retry-policy';
import type {
  AcknowledgeOutcome,
  AcquireOptions,
  RetryOutcome,
  TaskBackend,
} from '../core/task-backend.interface';
import { recordWith } from '../core/record-with';
import type { TaskRecord } from '../core/task-record.interface';
import { TaskResultDoesNotExist } from '../core/errors/task-result-does-not-exist.error';
import { TaskResultStatus } from '../core/task-result-status.enum';
import {
  acknowledgeFailed,
  acquireFailed,
  heldJournalFailed,
  orphanedLeasesReleased,
  releaseFailed,
  staleAcknowledge,
  taskAbandoned,
  taskFinishedLine,
  taskStartedLine,
} from '../core/worker.messages';
import { ChangeSignal } from '../utils/change-signal.util';
import type { HeldJournal } from './held-journal';
import type { ChildExitReason, ChildMessage, Settled } from './worker-ipc';
import type { WorkerOptions } from './worker-options.interface';

/** Runs one RUNNING record and returns it finished; `TaskRunner.run` in the app. */
export type RunTask = (record: TaskRecord) => Promise<TaskRecord>;

/** The child's side of the IPC channel; resolves once the message left the process. */
export interface ParentChannel {
  send(message: ChildMessage): Promise<void>;
}

export interface WorkerChildDeps {
  readonly backend: TaskBackend;
  readonly runTask: RunTask;
  readonly channel: ParentChannel;
  /** Where the ids this child holds are kept for the pool's main process. */
  readonly journal: HeldJournal;
  readonly logger: LoggerService;
  /** Whether per-task lines are logged; decided once so a silent pool builds no strings. */
  readonly logTasks: boolean;
  /** `host:pid`, the prefix of every slot's worker id. */
  readonly identity: string;
  /** How long one idle acquire blocks before it is re-issued. */
  readonly idleWaitMs: number;
  /** Pause after a failed acquire or acknowledge before trying again. */
  readonly retryDelayMs: number;
  /** The pool this child belongs to: its acquires are recorded under it (dead-pool recovery). */
  readonly poolId?: string;
  /**
   * Period of the check that frees the slot of a task whose lease is gone
   * (reaped by the broker while the task never settled). Tasks running longer
   * than this are looked up; omitted, no check runs.
   */
  readonly leaseCheckMs?: number;
  /** Draws the recycling jitter; `Math.random` outside tests. */
  readonly random?: () => number;
  /** Told when each task starts and ends: the liveness beat, which carries their declared bounds. */
  readonly liveness?: {
    started(record: TaskRecord): void;
    ended(record: TaskRecord): void;
  };
}

/** Most running tasks per queue searched for leases an acquire left behind (one peek per queue). */
const ORPHAN_SEARCH_LIMIT = 1000;

/** Longest a stored task waits before the parent's counts include it (one message per period at most). */
const PROGRESS_REPORT_MS = 250;

/**
 * How many acquires a consumer of `threads` slots keeps out at once, each for
 * its share of the slots, so one batch runs while the next is leased.
 * Measured on a 2-core machine (bench/, no-op tasks, interleaved runs): below
 * 8 slots one acquire of all free slots is as fast as two; from 8 on, two
 * lanes beat one (at 10 slots, 38k tasks/s against 28.5k in one process);
 * from 32 on, four beat two in one process (61k against 48k tasks/s at 100
 * slots, 58k against 44k at 32, the same Redis CPU per task). A pool child
 * drained as fast with four as with two (27.3k against 27.5k tasks/s, one
 * child of 100 threads): it has no idle time for more lanes to fill. It had
 * drained slower with four while it sent its parent a message per batch,
 * before the held-task journal; with a Redis further away than loopback,
 * more calls in flight hide more of each round trip.
 */
export function acquireLanes(threads: number): number {
  if (threads < 8) return 1;
  return threads < 32 ? 2 : 4;
}

/** Longest pause between two tries of a refused store (it doubles from retryDelayMs up to this). */
const STORE_RETRY_MAX_MS = 30_000;

/**
 * One child process of the pool: `threads` concurrent slots fed by a single
 * acquire loop. Each acquire asks for as many tasks as there are free slots
 * (bounded prefetch: one round trip feeds many slots), and tasks that finish
 * together are acknowledged together. The journal records which ids are
 * held before any of them starts, so the parent can fail them if this
 * process dies.
 */
export class WorkerChild {
  private readonly abort = new AbortController();
  /** Aborted by an urgent stop only: what a graceful stop still waits for listens to it. */
  private readonly urgentAbort = new AbortController();
  private readonly freeSlots: number[] = [];
  /** Acquired and not yet finished: what an urgent stop releases. */
  private readonly running = new Map<string, TaskRecord>();
  /** The slot and start time (ms) of each started task, for the lease check. */
  private readonly runs = new Map<string, { slot: number; since: number }>();
  private leaseCheck: NodeJS.Timeout | null = null;
  private checkingLeases = false;
  /** Finished and waiting for the next acknowledge batch. */
  private readonly finished: TaskRecord[] = [];
  /** Acquired and not yet stored (acknowledged, retried) or released: leases this child knows. */
  private readonly unsettled = new Set<string>();
  /** An acquire failed: Redis may have leased tasks whose reply never arrived. */
  private orphansPossible = false;
  /** The orphan search under way, shared by every lane that needs it. */
  private orphanSearch: Promise<boolean> | null = null;
  /**
   * Whether the last acquire filled its request, so more may be waiting: only
   * then do the lanes besides the first look, and an idle worker sends one
   * acquire per change, not one per lane.
   */
  private backlogLikely = true;
  /** Set once a lane found the store empty with nothing running (--exit-empty): the waiting lanes end too. */
  private drained = false;
  /** Acquire calls out now (one per lane at most). */
  private acquiring = 0;
  private releasing: Promise<void> = Promise.resolve();
  private flushing: Promise<void> | null = null;
  private readonly changes = new ChangeSignal();
  private budget: number;
  private stopMode: 'none' | 'graceful' | 'urgent' = 'none';
  /** Stopping to be replaced (see recycle), not because the pool asked. */
  private recycling = false;
  /** Stored since the last progress report to the parent. */
  private progress = { succeeded: 0, failed: 0 };
  private progressTimer: NodeJS.Timeout | null = null;
  private journalFailed = false;
  /**
   * Store calls refused in a row (a full Redis, an outage). While any is, no
   * new task is leased: the outcomes held here must land first.
   */
  private refusedStores = 0;

  constructor(
    private readonly options: WorkerOptions,
    private readonly deps: WorkerChildDeps,
  ) {
    for (let slot = 1; slot <= options.threads; slot++) this.freeSlots.push(slot);
    const random = deps.random ?? Math.random;
    this.budget =
      options.maxTasks === null
        ? Number.POSITIVE_INFINITY
        : options.maxTasks + Math.floor(random() * (options.maxTasksJitter + 1));
  }

  /** Tasks this child will still acquire before it recycles itself. */
  get remainingBudget(): number {
    return this.budget;
  }

  /** Work until drained, recycled or stopped; resolves once nothing is held any more. */
  async run(): Promise<ChildExitReason> {
    await this.deps.channel.send({ kind: 'ready' });
    const { leaseCheckMs } = this.deps;
    if (leaseCheckMs !== undefined) {
      this.leaseCheck = setInterval(() => void this.checkLeases(leaseCheckMs), leaseCheckMs);
    }
    try {
      const lanes = acquireLanes(this.options.threads);
      const reasons = await Promise.all(
        // A lane that ends wakes the others, so they see what ended it.
        Array.from({ length: lanes }, (_, lane) =>
          this.acquireLoop(lane, lanes).finally(() => this.changes.notify()),
        ),
      );
      const reason = reasons.includes('recycled') ? 'recycled' : reasons[0];
      await this.settleAll();
      if (this.recycling) return 'recycled';
      return this.stopMode === 'none' ? reason : 'stopped';
    } finally {
      if (this.leaseCheck) clearInterval(this.leaseCheck);
      await this.reportProgress();
    }
  }

  /**
   * Ends this child to be replaced: acquire nothing more, finish what is
   * held, exit as recycled (the pool starts another). For a process whose
   * state is no longer to be trusted, e.g. after an uncaught exception.
   */
  recycle(): void {
    this.recycling = true;
    this.stop(false);
  }

  /**
   * Graceful: acquire nothing more, finish and acknowledge what is held.
   * Urgent: also put every unfinished task back in its ready queue now.
   */
  stop(urgent: boolean): void {
    if (this.stopMode === 'urgent' || (this.stopMode === 'graceful' && !urgent)) return;
    this.stopMode = urgent ? 'urgent' : 'graceful';
    this.abort.abort();
    if (urgent) {
      this.urgentAbort.abort();
      this.releaseRunning();
    }
    this.changes.notify();
  }

  /**
   * One lane of acquires: `lanes` of them share the slots, each asking for at
   * most its share, so with many slots one batch runs while the next is being
   * leased. Only lane 0 blocks on an idle store; another lane that finds
   * nothing waits for a change (a task started or finished) and looks again.
   */
  private async acquireLoop(lane: number, lanes: number): Promise<ChildExitReason> {
    const share = Math.ceil(this.options.threads / lanes);
    const blocking = lane === 0 && !this.options.exitEmpty;
    while (this.stopMode === 'none') {
      if (this.budget <= 0) {
        // Another lane's call may give back what it reserved and did not use.
        if (this.acquiring === 0) return 'recycled';
        await this.changes.next();
        continue;
      }
      if (this.freeSlots.length === 0 || this.refusedStores > 0) {
        await this.changes.next();
        continue;
      }
      if (lane > 0 && !this.backlogLikely) {
        if (this.drained) return 'drained';
        await this.changes.next();
        continue;
      }
      if (this.orphanSearch) {
        // No acquire may start while it runs: the lease it makes would look like an orphan.
        await this.orphanSearch;
        continue;
      }
      if (this.orphansPossible) {
        // The search takes every lease of ours it does not know as an orphan: none may be in flight.
        if (this.acquiring > 0) {
          await this.changes.next();
          continue;
        }
        if (!(await this.searchOrphans())) {
          await this.pause(this.deps.retryDelayMs);
          continue;
        }
      }
      // Slots and budget are reserved while the call is out, so lanes never take more than is free.
      const slots = this.freeSlots.splice(0, Math.min(share, this.budget));
      this.budget -= slots.length;
      const workerId = this.workerId(slots[0]);
      const options: AcquireOptions = {
        workerId,
        max: slots.length,
        // --exit-empty must see "empty" at once; otherwise block, which costs Redis nothing.
        timeoutMs: blocking ? this.deps.idleWaitMs : 0,
        signal: this.abort.signal,
        poolId: this.deps.poolId,
      };
      const done = this.takeFinishedForAcquire();
      let records: TaskRecord[] | null = null;
      this.acquiring++;
      try {
        if (done.length > 0) {
          const result = await this.deps.backend.acknowledgeAndAcquire(
            done,
            this.options.queues,
            options,
          );
          records = result.acquired;
          this.stored(done, result.acknowledged);
          this.settled(done);
        } else {
          records = await this.deps.backend.acquire(this.options.queues, options);
        }
      } catch (error) {
        this.deps.logger.error(acquireFailed(this.options.backend, error));
        this.orphansPossible = true;
        if (done.length > 0) {
          // Stored or not is unknown: the acknowledge path tries them again (a repeat is only stale).
          this.finished.unshift(...done);
          this.scheduleFlush();
        }
      } finally {
        this.acquiring--;
      }
      this.unreserve(slots, records?.length ?? 0);
      if (records === null) {
        await this.pause(this.deps.retryDelayMs);
        continue;
      }
      this.backlogLikely = records.length === slots.length;
      if (records.length === 0) {
        if (this.options.exitEmpty && this.running.size === 0 && this.acquiring === 0) {
          this.drained = true;
          return 'drained';
        }
        // Running tasks may enqueue more (--exit-empty), or this lane does not block: look again
        // on a change. Not after a stop: its one notify may have come while this call was out
        // (another lane may even have ended already), and no change would follow.
        if (!blocking && this.stopMode === 'none') await this.changes.next();
        continue;
      }
      this.take(records, workerId, slots);
    }
    return 'stopped';
  }

  /** Gives back the slots and budget of a call that leased only `used` of them. */
  private unreserve(slots: readonly number[], used: number): void {
    if (used === slots.length) return;
    this.budget += slots.length - used;
    this.freeSlots.unshift(...slots.slice(used));
    this.changes.notify();
  }

  /** Starts a leased batch. */
  private take(
    records: readonly TaskRecord[],
    batchWorkerId: string,
    slots: readonly number[],
  ): void {
    for (const record of records) {
      this.running.set(record.id, record);
      this.unsettled.add(record.id);
    }
    // In the journal before any starts: a task that kills this process must not be forgotten.
    this.journal((journal) => journal.hold(records.map((r) => r.id)));
    if (this.stopMode === 'urgent') {
      this.freeSlots.push(...slots.slice(0, records.length));
      this.releaseRunning();
      return;
    }
    // acquire() never returns more than `max`, the slots reserved for it.
    records.forEach((record, i) =>
      this.start(this.stampSlot(record, batchWorkerId, slots[i]), slots[i]),
    );
    // Another lane waiting for a change may find more work now.
    this.changes.notify();
  }

  private start(record: TaskRecord, slot: number): void {
    this.runs.set(record.id, { slot, since: Date.now() });
    this.deps.liveness?.started(record);
    const started = this.deps.logTasks ? performance.now() : 0;
    if (this.deps.logTasks) {
      this.deps.logger.verbose?.(taskStartedLine(record.id, record.task.name, this.workerId(slot)));
    }
    this.deps.runTask(record).then(
      (result) => this.finish(result, slot, started),
      (error: unknown) => this.finish(failedAttempt(record, error), slot, started),
    );
  }

  private finish(result: TaskRecord, slot: number, started: number): void {
    this.deps.liveness?.ended(result);
    // Released on an urgent stop (READY again) or abandoned after its lease was
    // reaped: its late result must not be stored, and its slot was dealt with.
    if (this.running.delete(result.id)) {
      this.runs.delete(result.id);
      this.freeSlots.push(slot);
      if (this.deps.logTasks) {
        this.deps.logger.verbose?.(
          taskFinishedLine(result.id, result.task.name, performance.now() - started, result.status),
        );
      }
      // A failed attempt with attempts left goes back for a retry; deciding costs nothing on success.
      this.finished.push(
        result.status === TaskResultStatus.FAILED ? nextAttempt(result, null, new Date()) : result,
      );
      this.scheduleFlush();
    }
    this.changes.notify();
  }

  /** Several tasks finishing in one turn of the event loop share one acknowledge call. */
  private scheduleFlush(): void {
    if (this.flushing) return;
    this.flushing = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.flush())
      .finally(() => {
        this.flushing = null;
        // A task may have finished after the loop's last check but before this callback.
        if (this.finished.length > 0) this.scheduleFlush();
        this.changes.notify();
      });
  }

  private async flush(): Promise<void> {
    while (this.finished.length > 0) {
      const batch = this.finished.splice(0);
      const retries = batch.filter(isRetry);
      const done = retries.length === 0 ? batch : batch.filter((r) => !isRetry(r));
      await Promise.all([
        done.length > 0 ? this.store(done, 'acknowledge') : undefined,
        retries.length > 0 ? this.store(retries, 'retry') : undefined,
      ]);
      // Stored, or given up on after every attempt (then the reaper's): not ours to recover either way.
      this.settled(batch);
    }
  }

  /** A batch is off this child's hands: out of the journal, into the next progress report. */
  private settled(batch: readonly TaskRecord[]): void {
    this.journal((journal) => journal.release(batch.map((r) => r.id)));
    for (const record of batch) {
      // A retried task is neither done nor failed: it runs again.
      if (isRetry(record)) continue;
      if (record.status === TaskResultStatus.FAILED) this.progress.failed++;
      else this.progress.succeeded++;
    }
    this.progressTimer ??= setTimeout(() => void this.reportProgress(), PROGRESS_REPORT_MS);
  }

  /** Tells the parent what was stored since the last report, if anything. */
  private async reportProgress(): Promise<void> {
    if (this.progressTimer) clearTimeout(this.progressTimer);
    this.progressTimer = null;
    const progress: Settled = this.progress;
    if (progress.succeeded + progress.failed === 0) return;
    this.progress = { succeeded: 0, failed: 0 };
    await this.deps.channel.send({ kind: 'settled', ...progress });
  }

  /**
   * A journal that cannot be written (a full disk) must not stop the work:
   * the tasks stay leased, and if this process dies the parent's search of
   * the running tasks and the lease reaper still find them. Said once.
   */
  private journal(write: (journal: HeldJournal) => void): void {
    try {
      write(this.deps.journal);
    } catch (error) {
      if (this.journalFailed) return;
      this.journalFailed = true;
      this.deps.logger.error(heldJournalFailed(error));
    }
  }

  /**
   * Acknowledges finished records, or sends failed attempts back (retry). A
   * refused call (the store is full or unreachable) is tried again, with a
   * pause that doubles up to STORE_RETRY_MAX_MS, for as long as it takes:
   * the outcome exists only here, and the task stays RUNNING meanwhile,
   * never lost. Only an urgent stop gives up (the pool then releases what the
   * journal still holds).
   */
  private async store(batch: readonly TaskRecord[], how: 'acknowledge' | 'retry'): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        const outcomes =
          how === 'retry'
            ? await this.deps.backend.retry(batch)
            : await this.deps.backend.acknowledge(batch);
        this.stored(batch, outcomes);
        if (attempt > 1) {
          this.refusedStores--;
          this.changes.notify();
        }
        return;
      } catch (error) {
        if (attempt === 1) this.refusedStores++;
        const pauseMs = Math.min(this.deps.retryDelayMs * 2 ** (attempt - 1), STORE_RETRY_MAX_MS);
        const urgent = this.stopMode === 'urgent';
        this.deps.logger.error(
          acknowledgeFailed(batch.length, attempt, error, urgent ? null : pauseMs),
        );
        if (urgent) {
          this.refusedStores--;
          return;
        }
        // A graceful stop still waits for these outcomes; only an urgent one cuts the pause.
        await this.pause(pauseMs, this.urgentAbort.signal);
      }
    }
  }

  /**
   * The finished records the next acquire can store in the same round trip:
   * all but failed attempts going back for a retry.
   * The acknowledge path stores whatever finishes while an acquire is out.
   */
  private takeFinishedForAcquire(): TaskRecord[] {
    if (this.finished.length === 0) return [];
    const done = this.finished.filter((record) => !isRetry(record));
    if (done.length === this.finished.length) this.finished.length = 0;
    else this.finished.splice(0, this.finished.length, ...this.finished.filter(isRetry));
    return done;
  }

  /** After a store answered: stale ones are reported, and none is a lease of ours any more. */
  private stored(
    batch: readonly TaskRecord[],
    outcomes: readonly (AcknowledgeOutcome | RetryOutcome)[],
  ): void {
    outcomes.forEach((outcome, i) => {
      if (outcome === 'stale') this.deps.logger.warn(staleAcknowledge(batch[i].id));
    });
    // (One given up on stays ours: the reaper's, never an orphan.)
    for (const record of batch) this.unsettled.delete(record.id);
  }

  private releaseRunning(): void {
    const records = [...this.running.values()];
    this.running.clear();
    this.runs.clear();
    if (records.length === 0) return;
    const ids = records.map((r) => r.id);
    for (const id of ids) this.unsettled.delete(id);
    const release = this.deps.backend
      .release(records)
      .catch((error: unknown) => {
        this.deps.logger.error(releaseFailed(ids, error));
      })
      .then(() => this.journal((journal) => journal.release(ids)));
    // settleAll waits for the release like it waits for acknowledgements.
    this.releasing = this.releasing.then(() => release);
    this.changes.notify();
  }

  /**
   * A task that never settles keeps its slot, and would keep a graceful stop
   * or a recycle waiting forever. Once the broker reaped its lease (it is
   * FAILED with AcknowledgementTimeout, or gone) nothing it returns can be
   * stored any more, so its slot is freed and it no longer counts as held.
   */
  private async checkLeases(olderThanMs: number): Promise<void> {
    if (this.checkingLeases || this.stopMode === 'urgent') return;
    this.checkingLeases = true;
    try {
      const cutoff = Date.now() - olderThanMs;
      const suspects = [...this.runs].filter(([, run]) => run.since < cutoff).map(([id]) => id);
      for (const id of suspects) {
        const stored = await this.deps.backend.getResult(id).then(
          (record): TaskRecord | null => record,
          (error: unknown) => (error instanceof TaskResultDoesNotExist ? null : undefined),
        );
        // undefined: the store did not answer; look again next time.
        if (stored === undefined) continue;
        const held = this.running.get(id);
        // Still our lease: RUNNING in the same attempt (not retried and taken by another worker).
        const ours =
          stored?.status === TaskResultStatus.RUNNING &&
          stored.workerIds.length === held?.workerIds.length;
        if (!ours) this.abandon(id, stored?.status ?? 'expired');
      }
    } finally {
      this.checkingLeases = false;
    }
  }

  private abandon(id: string, status: string): void {
    const record = this.running.get(id);
    const run = this.runs.get(id);
    if (!record || !run) return;
    this.running.delete(id);
    this.runs.delete(id);
    this.unsettled.delete(id);
    this.freeSlots.push(run.slot);
    this.deps.logger.warn(taskAbandoned(id, record.task.name, status));
    this.journal((journal) => journal.release([id]));
    this.changes.notify();
  }

  /** Runs the orphan search once for all lanes; true when it ran. */
  private searchOrphans(): Promise<boolean> {
    this.orphanSearch ??= this.releaseOrphans().finally(() => {
      this.orphanSearch = null;
    });
    return this.orphanSearch;
  }

  /**
   * After a failed acquire: Redis may have run it and lost only the reply, so
   * tasks may be leased to this child's slots that it never received. They
   * never started, so they go back to their queue at their place (release)
   * instead of waiting for the lease reaper. Runs between acquires, so every
   * lease of ours that is not in `unsettled` is such an orphan. True when the
   * search ran (the store answered).
   */
  private async releaseOrphans(): Promise<boolean> {
    const prefix = `${this.deps.identity}-`;
    try {
      const orphans: TaskRecord[] = [];
      for (const queue of this.options.queues) {
        for (const record of await this.deps.backend.peek(queue, 'running', ORPHAN_SEARCH_LIMIT)) {
          const holder = record.workerIds[record.workerIds.length - 1] ?? '';
          if (holder.startsWith(prefix) && !this.unsettled.has(record.id)) orphans.push(record);
        }
      }
      if (orphans.length > 0) {
        const released = await this.deps.backend.release(orphans);
        this.deps.logger.warn(orphanedLeasesReleased(released, this.options.backend));
      }
      this.orphansPossible = false;
      return true;
    } catch (error) {
      this.deps.logger.error(acquireFailed(this.options.backend, error));
      return false;
    }
  }

  /** Resolves once nothing acquired is unacknowledged or unreleased. */
  private async settleAll(): Promise<void> {
    while (this.running.size > 0 || this.finished.length > 0 || this.flushing) {
      await (this.flushing ?? this.changes.next());
    }
    await this.releasing;
  }

  /**
   * One acquire call records one worker id for its whole batch; each task is
   * re-stamped with the slot that actually runs it, so the stored result
   * names `host:pid-slot` exactly.
   */
  private stampSlot(record: TaskRecord, batchWorkerId: string, slot: number): TaskRecord {
    const slotWorkerId = this.workerId(slot);
    const last = record.workerIds.length - 1;
    if (slotWorkerId === batchWorkerId || record.workerIds[last] !== batchWorkerId) return record;
    return recordWith(record, { workerIds: [...record.workerIds.slice(0, last), slotWorkerId] });
  }

  private workerId(slot: number): string {
    return `${this.deps.identity}-${slot}`;
  }

  /** Sleep that a stop cuts short (by default any stop). */
  private pause(ms: number, signal = this.abort.signal): Promise<void> {
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    });
  }
}

import { CancelHook } from '../../core/cancel-hook';
import type { TaskRecord } from '../../core/task-record.interface';
import { failedAttempt, nextAttempt } from '../../lifecycle/retry-policy';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import { taskAbandoned } from '../worker.messages';
import { ChangeSignal } from '../../utils/change-signal.util';
import type { ChildExitReason } from '../worker-ipc';
import type { WorkerOptions } from '../worker-options.interface';
import { AcquireLanes } from './acquire-lanes';
import { LeaseCheck, type RunningTask } from './lease-check';
import { ReleaseAndUnlease } from './release-and-unlease';
import { LeaseLedger } from './lease-ledger';
import { OrphanSearch } from './orphan-search';
import { OutcomeQueue } from './outcome-queue';
import { HeldTasks, isLease, type Held } from './held-tasks';
import { PrefetchShelf, type StartingTask } from './prefetch-shelf';
import { ChildCancels } from './child-cancels';
import { ProgressReport } from './progress-report';
import { stampSlot, TaskSlots } from './task-slots';
import type { WorkerChildDeps } from './worker-child.deps';

export type { RunTask, WorkerChildDeps } from './worker-child.deps';

/** Longest a settled task waits before the parent's counts include it. */
const PROGRESS_REPORT_MS = 250;

/**
 * One child process of the pool: `threads` concurrent slots fed by one or a
 * few acquire lanes. Each acquire asks for as many tasks as there are free
 * slots, plus its free `--prefetch` places (tasks that wait in the
 * PrefetchShelf and start the moment a slot frees); the outcomes go to the
 * OutcomeQueue, the leases to the LeaseLedger (and its journal, which the
 * pool reads if this process dies).
 */
export class WorkerChild {
  private readonly abort = new AbortController();
  /** Aborted by an urgent stop only: what a graceful stop still waits for listens to it. */
  private readonly urgentAbort = new AbortController();
  private readonly changes = new ChangeSignal();
  private readonly slots: TaskSlots;
  private readonly ledger: LeaseLedger;
  private readonly outcomes: OutcomeQueue;
  private readonly orphans: OrphanSearch;
  private readonly progress: ProgressReport;
  private readonly leaseCheck: LeaseCheck | null;
  private readonly lanes: AcquireLanes;
  /** In its slots, started or about to be, not yet finished: what an urgent stop releases. */
  private readonly held: HeldTasks;
  /** Leased, not started: what any stop, a pause or a cancel gives back unstarted. */
  private readonly shelf: PrefetchShelf;
  /** The pool's cancel requests for what this child holds, and whether a leased task may start. */
  private readonly cancels: ChildCancels;
  private readonly releaseAndUnlease: ReleaseAndUnlease;
  private stopMode: 'none' | 'graceful' | 'urgent' = 'none';
  /** Stopping to be replaced (see recycle), not because the pool asked. */
  private recycling = false;

  constructor(
    options: WorkerOptions,
    private readonly deps: WorkerChildDeps,
  ) {
    this.slots = TaskSlots.of(options, deps.random ?? Math.random);
    this.held = new HeldTasks(this.slots, {
      logger: deps.logger,
      hardStopAfterMs: (name) => deps.hardStopAfterMs?.(name),
      // Only the pool can end code that ignores its signal, by ending this process.
      hardStop: (id, reason) => void deps.channel.send({ kind: 'hardStop', id, reason }),
    });
    this.ledger = new LeaseLedger(deps.journal, deps.logger, () => {
      void deps.channel.send({ kind: 'journalFailed' });
    });
    this.releaseAndUnlease = new ReleaseAndUnlease(deps.backend, deps.logger, this.ledger);
    this.shelf = new PrefetchShelf({
      ...deps,
      slots: this.slots,
      ledger: this.ledger,
      releaseAndUnlease: this.releaseAndUnlease,
      changes: this.changes,
    });
    this.progress = new ProgressReport(deps.channel, PROGRESS_REPORT_MS, deps.metrics);
    this.outcomes = new OutcomeQueue({
      ...deps,
      urgent: this.urgentAbort.signal,
      changes: this.changes,
      waitForRides: this.slots.placesFree > 0,
      settled: (batch) => {
        this.ledger.forget(batch.map((r) => r.id));
        this.progress.count(batch);
        this.cancels.stored(batch);
      },
    });
    this.orphans = new OrphanSearch({ ...deps, queues: options.queues, ledger: this.ledger });
    this.lanes = new AcquireLanes({
      ...deps,
      queues: options.queues,
      threads: options.threads,
      exitEmpty: options.exitEmpty,
      slots: this.slots,
      outcomes: this.outcomes,
      orphans: this.orphans,
      changes: this.changes,
      stopSignal: this.abort.signal,
      workerId: (slot) => this.workerId(slot),
      idle: () => this.held.size === 0 && this.shelf.size === 0,
      take: (records, batchWorkerId, slots) => this.take(records, batchWorkerId, slots),
      unreserved: () => this.startWaiting(),
    });
    this.leaseCheck = LeaseCheck.of(
      deps,
      // A prefetched task's lease runs while it waits: it is checked too.
      () =>
        this.shelf.size === 0
          ? this.held.tasks
          : new Map<string, RunningTask>([...this.held.tasks, ...this.shelf.tasks]),
      (id, status) => this.abandon(id, status),
    );
    this.cancels = new ChildCancels({
      ...deps,
      store: (record) => this.outcomes.add(record),
      takeWaiting: (id, lease) => {
        const waiting = this.shelf.tasks.get(id);
        return waiting && isLease(waiting.record, lease) ? this.shelf.take(id)?.record : undefined;
      },
      stopRunning: (id, lease) => this.held.stopRunning(id, lease),
      holding: () => this.held.size > 0 || this.shelf.size > 0,
    });
  }

  /** Tasks this child will still acquire before it recycles itself. */
  get remainingBudget(): number {
    return this.slots.remainingBudget;
  }

  /** Work until drained, recycled or stopped; resolves once nothing is held any more. */
  async run(): Promise<ChildExitReason> {
    await this.deps.channel.send({ kind: 'ready' });
    this.leaseCheck?.start();
    this.cancels.watch();
    if (this.slots.placesFree > 0) this.shelf.start();
    try {
      const reasons = await this.lanes.run();
      const reason = reasons.includes('recycled') ? 'recycled' : reasons[0];
      await this.settleAll();
      if (this.recycling) return 'recycled';
      return this.stopMode === 'none' ? reason : 'stopped';
    } finally {
      this.leaseCheck?.stop();
      this.cancels.unwatch();
      this.shelf.stop();
      await this.progress.send();
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
   * Graceful: acquire nothing more, give back what never started, finish
   * and acknowledge what runs. Urgent: also put every unfinished task back
   * in its ready queue now.
   */
  stop(urgent: boolean): void {
    if (this.stopMode === 'urgent' || (this.stopMode === 'graceful' && !urgent)) return;
    this.stopMode = urgent ? 'urgent' : 'graceful';
    this.abort.abort();
    this.shelf.unleaseAll();
    if (urgent) {
      this.urgentAbort.abort();
      this.releaseHeld();
    }
    this.changes.notify();
  }

  /** Starts a leased batch where there are slots for it; the rest wait on the shelf. */
  private take(records: readonly TaskRecord[], batchWorkerId: string, slots: number[]): void {
    if (this.stopMode === 'urgent') {
      // Leased after the stop, so never started: back as if never leased (settleAll waits for it).
      this.slots.vacate(...slots.slice(0, records.length));
      this.slots.vacatePlaces(records.length - Math.min(records.length, slots.length));
      this.releaseAndUnlease.unlease(records, 'leased after an urgent stop');
      this.changes.notify();
      return;
    }
    const starting = this.shelf.place(records, batchWorkerId, slots, this.stopMode !== 'none');
    // In the journal before any starts: a task that kills this process must not be forgotten.
    this.ledger.hold(starting.map((task) => task.record.id));
    this.begin(starting);
    // Another lane waiting for a change may find more work now.
    this.changes.notify();
  }

  /** Prefetched tasks into the slots free now, oldest first. */
  private startWaiting(): void {
    if (this.stopMode === 'none' && this.shelf.size > 0) this.begin(this.shelf.startable());
  }

  /** Into their slots: each starts unless a cancel came first (see ChildCancels.start). */
  private begin(starting: readonly StartingTask[]): void {
    for (const { record, slot, batchWorkerId } of starting) {
      const cancel = new CancelHook();
      const task = { record, slot, batchWorkerId, since: Date.now(), cancel, started: false };
      this.held.add(task);
      this.cancels.start(record, {
        // Released by an urgent stop, or its lease taken back, while it waited for a read.
        held: () => this.held.holds(task),
        start: () => this.start(task),
        cancelled: () => {
          this.held.remove(record.id);
          this.startWaiting();
          this.changes.notify();
        },
      });
    }
  }

  private start(task: Held): void {
    const { slot, cancel } = task;
    const record = stampSlot(task.record, task.batchWorkerId, this.workerId(slot));
    this.deps.liveness?.started(record);
    this.held.started(task, record);
    // Its lines and metrics come from the event stream the task runner emits to.
    this.deps.runTask(record, cancel).then(
      (result) => this.finish(result),
      (error: unknown) => this.finish(failedAttempt(record, error)),
    );
  }

  private finish(result: TaskRecord): void {
    this.deps.liveness?.ended(result);
    // Released on an urgent stop (READY again) or abandoned after its lease was
    // taken back: its late result must not be stored, and its slot was dealt with.
    if (this.held.remove(result.id)) {
      this.startWaiting();
      // A failed attempt with attempts left goes back for a retry; deciding costs nothing on
      // success. A CANCELLED one is final: it is stored as it is, never retried.
      this.outcomes.add(
        result.status === TaskResultStatus.FAILED ? nextAttempt(result, null, new Date()) : result,
      );
    }
    this.changes.notify();
  }

  /** Puts every leased, unfinished task back in its ready queue (an urgent stop). */
  private releaseHeld(): void {
    const held = this.held.removeAll();
    if (held.length === 0) return;
    // settleAll waits for the release like it waits for acknowledgements.
    this.releaseAndUnlease.release(
      held.map((task) => task.record),
      'urgent stop',
    );
    this.changes.notify();
  }

  /** The LeaseCheck found the lease of a task this child runs taken back: its slot works again. */
  private abandon(id: string, status: string): void {
    const task = this.held.remove(id) ?? this.shelf.take(id);
    if (!task) return;
    this.startWaiting();
    this.deps.logger.warn(taskAbandoned(task.record, status));
    this.ledger.forget([id]);
    this.changes.notify();
  }

  /** Resolves once nothing leased is unfinished, unstored or unreleased. */
  private async settleAll(): Promise<void> {
    while (this.held.size > 0 || this.shelf.size > 0 || !this.outcomes.empty) {
      await (this.outcomes.flush ?? this.changes.next());
    }
    await this.releaseAndUnlease.answered;
  }

  private workerId(slot: number): string {
    return `${this.deps.identity}-${slot}`;
  }
}

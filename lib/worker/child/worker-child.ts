import { CancelHook } from '../../core/cancel-hook';
import { failedAttempt, nextAttempt } from '../../core/retry-policy';
import { recordWith } from '../../core/record-with';
import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import { taskAbandoned, taskCancelRequested } from '../../core/worker.messages';
import { ChangeSignal } from '../../utils/change-signal.util';
import type { ChildExitReason } from '../worker-ipc';
import type { WorkerOptions } from '../worker-options.interface';
import { AcquireLanes } from './acquire-lanes';
import { CancelWatch } from './cancel-watch';
import { LeaseCheck, type RunningTask } from './lease-check';
import { LeaseGiveBack } from './lease-give-back';
import { LeaseLedger } from './lease-ledger';
import { OrphanSearch } from './orphan-search';
import { OutcomeQueue } from './outcome-queue';
import { ProgressReport } from './progress-report';
import { TaskSlots } from './task-slots';
import type { WorkerChildDeps } from './worker-child.deps';

export type { RunTask, WorkerChildDeps } from './worker-child.deps';

/** Longest a settled task waits before the parent's counts include it. */
const PROGRESS_REPORT_MS = 250;

/** A leased task this child runs (or is about to start). */
interface Held extends RunningTask {
  readonly slot: number;
  /** Requested by a cancel request: the attempt's signal aborts with it. */
  readonly cancel: CancelHook;
}

/**
 * One child process of the pool: `threads` concurrent slots fed by one or a
 * few acquire lanes. Each acquire asks for as many tasks as there are free
 * slots (bounded prefetch: one round trip feeds many slots); the outcomes go
 * to the OutcomeQueue, the leases to the LeaseLedger (and its journal, which
 * the pool reads if this process dies).
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
  private readonly cancelWatch: CancelWatch | null;
  private readonly lanes: AcquireLanes;
  /** Leased and not yet finished: what an urgent stop releases. */
  private readonly held = new Map<string, Held>();
  private readonly giveBack: LeaseGiveBack;
  private stopMode: 'none' | 'graceful' | 'urgent' = 'none';
  /** Stopping to be replaced (see recycle), not because the pool asked. */
  private recycling = false;

  constructor(
    options: WorkerOptions,
    private readonly deps: WorkerChildDeps,
  ) {
    const random = deps.random ?? Math.random;
    const budget =
      options.maxTasks === null
        ? Number.POSITIVE_INFINITY
        : options.maxTasks + Math.floor(random() * (options.maxTasksJitter + 1));
    this.slots = new TaskSlots(options.threads, budget);
    this.ledger = new LeaseLedger(deps.journal, deps.logger, () => {
      void deps.channel.send({ kind: 'journalFailed' });
    });
    this.giveBack = new LeaseGiveBack(deps.backend, deps.logger, this.ledger);
    this.progress = new ProgressReport(deps.channel, PROGRESS_REPORT_MS, deps.metrics);
    this.outcomes = new OutcomeQueue({
      backend: deps.backend,
      logger: deps.logger,
      retryDelayMs: deps.retryDelayMs,
      urgent: this.urgentAbort.signal,
      changes: this.changes,
      metrics: deps.metrics,
      settled: (batch) => {
        this.ledger.forget(batch.map((r) => r.id));
        this.progress.count(batch);
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
      idle: () => this.held.size === 0,
      take: (records, batchWorkerId, slots) => this.take(records, batchWorkerId, slots),
    });
    this.leaseCheck =
      deps.leaseCheckMs === undefined
        ? null
        : new LeaseCheck({
            backend: deps.backend,
            everyMs: deps.leaseCheckMs,
            running: () => this.held,
            leaseGone: (id, status) => this.abandon(id, status),
          });
    this.cancelWatch = CancelWatch.of(deps, (id) => this.cancelHeld(id));
  }

  /** Tasks this child will still acquire before it recycles itself. */
  get remainingBudget(): number {
    return this.slots.remainingBudget;
  }

  /** Work until drained, recycled or stopped; resolves once nothing is held any more. */
  async run(): Promise<ChildExitReason> {
    await this.deps.channel.send({ kind: 'ready' });
    this.leaseCheck?.start();
    this.cancelWatch?.start();
    try {
      const reasons = await this.lanes.run();
      const reason = reasons.includes('recycled') ? 'recycled' : reasons[0];
      await this.settleAll();
      if (this.recycling) return 'recycled';
      return this.stopMode === 'none' ? reason : 'stopped';
    } finally {
      this.leaseCheck?.stop();
      this.cancelWatch?.stop();
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
   * Graceful: acquire nothing more, finish and acknowledge what is held.
   * Urgent: also put every unfinished task back in its ready queue now.
   */
  stop(urgent: boolean): void {
    if (this.stopMode === 'urgent' || (this.stopMode === 'graceful' && !urgent)) return;
    this.stopMode = urgent ? 'urgent' : 'graceful';
    this.abort.abort();
    if (urgent) {
      this.urgentAbort.abort();
      this.releaseHeld();
    }
    this.changes.notify();
  }

  /** Starts a leased batch (acquire never returns more than the slots reserved for it). */
  private take(records: readonly TaskRecord[], batchWorkerId: string, slots: number[]): void {
    const since = Date.now();
    if (this.stopMode === 'urgent') {
      // Leased after the stop, so never started: back as if never leased.
      this.giveBackUnstarted(records, slots);
      return;
    }
    const batch = records.map((record, i): Held => {
      const task = { record, slot: slots[i], since, cancel: new CancelHook() };
      this.held.set(record.id, task);
      return task;
    });
    // In the journal before any starts: a task that kills this process must not be forgotten.
    this.ledger.hold(records.map((r) => r.id));
    for (const task of batch)
      this.start(this.stampSlot(task.record, batchWorkerId, task.slot), task);
    // Another lane waiting for a change may find more work now.
    this.changes.notify();
  }

  private start(record: TaskRecord, { slot, cancel }: Held): void {
    this.deps.liveness?.started(record);
    // Its lines and metrics come from the event stream the task runner emits to.
    this.deps.runTask(record, cancel).then(
      (result) => this.finish(result, slot),
      (error: unknown) => this.finish(failedAttempt(record, error), slot),
    );
  }

  private finish(result: TaskRecord, slot: number): void {
    this.deps.liveness?.ended(result);
    // Released on an urgent stop (READY again) or abandoned after its lease was
    // taken back: its late result must not be stored, and its slot was dealt with.
    if (this.held.delete(result.id)) {
      this.slots.vacate(slot);
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
    const held = [...this.held.values()];
    this.held.clear();
    if (held.length === 0) return;
    this.slots.vacate(...held.map((task) => task.slot));
    // settleAll waits for the release like it waits for acknowledgements.
    this.giveBack.release(held.map((task) => task.record));
    this.changes.notify();
  }

  /** Gives back a batch that never started (unlease: no attempt counted); settleAll waits for it. */
  private giveBackUnstarted(records: readonly TaskRecord[], slots: number[]): void {
    this.slots.vacate(...slots.slice(0, records.length));
    this.giveBack.unlease(records);
    this.changes.notify();
  }

  /** The LeaseCheck found the lease of a task this child runs taken back: its slot works again. */
  private abandon(id: string, status: string): void {
    const task = this.held.get(id);
    if (!task) return;
    this.held.delete(id);
    this.slots.vacate(task.slot);
    this.deps.logger.warn(taskAbandoned(task.record, status));
    this.ledger.forget([id]);
    this.changes.notify();
  }

  /** A cancel request for `id`: stops its attempt when this child holds it. */
  private cancelHeld(id: string): boolean {
    const task = this.held.get(id);
    if (!task) return false;
    if (task.cancel.requested) return true;
    this.deps.logger.log(taskCancelRequested(task.record));
    task.cancel.request();
    const graceMs = this.deps.hardStopAfterMs?.(task.record.task.name);
    if (graceMs !== undefined) {
      // Still running after its grace: only the pool can stop it, by ending this process.
      const timer = setTimeout(() => {
        if (this.held.get(id) === task) void this.deps.channel.send({ kind: 'hardStop', id });
      }, graceMs);
      timer.unref();
    }
    return true;
  }

  /** Resolves once nothing leased is unfinished, unstored or unreleased. */
  private async settleAll(): Promise<void> {
    while (this.held.size > 0 || !this.outcomes.empty) {
      await (this.outcomes.flush ?? this.changes.next());
    }
    await this.giveBack.answered;
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
}

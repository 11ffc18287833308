import { StoreCorruptError } from '../../core/errors/store-corrupt.error';
import { poolStoppedStoreCorrupt } from '../../core/store.messages';
import {
  childBootFailed,
  childForkFailed,
  childHardStopped,
  childKilledAfterGrace,
  childReady,
  childWedged,
  ipcSendFailed,
  poolDrained,
  poolStarted,
  poolStopped,
} from '../worker.messages';
import { storeHealth } from '../../core/store-condition';
import { HeldJournal } from '../held-journal';
import { asChildMessage, type ParentMessage } from '../worker-ipc';
import type { WorkerOptions } from '../worker-options.interface';
import { closeCause, foundStoreDamaged, releasesTasks } from './child-exit';
import { ChildWatchdog } from './child-watchdog';
import { CrashRecovery } from './crash-recovery';
import { JournalFolder } from './journal-folder';
import { MaintenanceSchedule } from './maintenance-schedule';
import { PoolSummary } from './pool-summary';
import type { ChildState, PoolHealth, WorkerPoolDeps } from './worker-pool.deps';

/**
 * The pool's main process: supervises `processes` children, replaces those
 * that die, recycle themselves or stop answering, has a dead child's tasks
 * recovered at once (CrashRecovery), and keeps the pool's heartbeat and the
 * maintenance passes (MaintenanceSchedule).
 */
export class WorkerPool {
  private readonly children = new Map<number, ChildState>();
  private readonly respawns = new Set<NodeJS.Timeout>();
  private stopMode: 'none' | 'graceful' | 'urgent' = 'none';
  private finish: (() => void) | null = null;
  private stopRequested: () => void = () => undefined;
  private readonly stopping = new Promise<void>((resolve) => (this.stopRequested = resolve));
  private journals: JournalFolder | null = null;
  private readonly watchdog: ChildWatchdog;
  private readonly maintenance: MaintenanceSchedule;
  private readonly recovery: CrashRecovery;
  private readonly summary: PoolSummary;

  constructor(
    private readonly options: WorkerOptions,
    private readonly deps: WorkerPoolDeps,
  ) {
    this.watchdog = new ChildWatchdog({
      timeoutMs: options.livenessTimeoutMs,
      stopGraceMs: deps.urgentGraceMs,
      ceilingMs: deps.backend.leaseTtlMs,
      checkEveryMs: deps.livenessCheckMs,
      onWedged: (pid, silentForMs) => this.killWedged(pid, silentForMs),
    });
    this.maintenance = new MaintenanceSchedule({
      ...deps,
      queues: options.queues,
      slots: options.processes * options.threads,
      children: () => this.children.size,
    });
    this.summary = new PoolSummary(deps.stream, deps.summaryIntervalMs, () => this.children.size);
    this.recovery = new CrashRecovery({
      ...deps,
      queues: options.queues,
      counted: (done, failed) => this.summary.count(done, failed),
    });
  }

  /** Tasks finished by the pool's children (and failed by crash recovery). */
  get counts(): { done: number; failed: number } {
    return this.summary.counts;
  }

  /** Live children's pids. */
  get childPids(): number[] {
    return [...this.children.keys()];
  }

  /** What a liveness probe needs to know (see WorkerHealthServer). */
  get health(): PoolHealth {
    const { backend } = this.deps;
    let ready = 0;
    for (const child of this.children.values()) if (child.ready) ready++;
    return {
      stopping: this.stopMode !== 'none',
      childrenAlive: ready,
      childrenExpected: this.options.processes,
      lastMaintenancePassAt: this.maintenance.lastPassAt,
      maintenanceIntervalMs: backend.maintenanceIntervalMs,
      ...this.summary.counts,
      childrenWedged: this.watchdog.wedged,
      store: storeHealth(backend.alias, backend.storeCondition?.() ?? null),
    };
  }

  /** Resolves when the pool stopped (signal) or drained (`--exit-empty`). */
  async run(): Promise<void> {
    const { alias: backend, processes, threads, queues } = this.options;
    this.deps.logger.log(poolStarted(process.pid, backend, queues, processes, threads));
    const finished = new Promise<void>((resolve) => (this.finish = resolve));
    const journals = (this.journals = new JournalFolder(this.deps.journalRoot, this.deps.logger));
    try {
      // Alive before any child acquires under this pool's id; the first pass makes due
      // deferred tasks ready, so --exit-empty sees them. A stop meanwhile ends the wait.
      await this.maintenance.open((work) => this.unlessStopped(work));
      this.summary.start();
      this.watchdog.start();
      for (let i = 0; i < processes && this.stopMode === 'none'; i++) this.spawn();
      this.checkFinished();
      await finished;
      this.watchdog.stop();
      await this.recovery.settled();
      await this.maintenance.stop();
      this.summary.stop();
      const { done, failed } = this.summary.counts;
      this.deps.logger.log(poolStopped(done, failed));
    } finally {
      journals.remove();
    }
  }

  /** Graceful: children finish what they hold. Urgent: they release it and exit at once. */
  stop(urgent: boolean): void {
    if (this.stopMode === 'urgent' || (this.stopMode === 'graceful' && !urgent)) return;
    this.stopMode = urgent ? 'urgent' : 'graceful';
    this.stopRequested();
    this.watchdog.poolStopping();
    for (const timer of this.respawns) clearTimeout(timer);
    this.respawns.clear();
    const message: ParentMessage = { kind: 'stop', urgent };
    for (const child of this.children.values()) {
      this.sendTo(child, message);
      if (urgent) this.killAfterGrace(child);
    }
    this.checkFinished();
  }

  private spawn(): void {
    const journals = this.journals;
    // Children are started by run(), which made the folder first.
    if (journals === null) return;
    const journal = journals.next();
    const child = this.deps.forkChild(journal);
    const pid = child.pid;
    if (pid === undefined) {
      // fork() reports a failure to start through 'error'; try again later like a boot failure.
      child.once('error', (error: Error) => {
        this.deps.logger.error(childForkFailed(error));
      });
      this.respawnLater();
      return;
    }
    const state: ChildState = {
      process: child,
      pid,
      journal,
      ready: false,
      exitReason: null,
      silentForMs: null,
      journalWhole: journals.whole,
      hardStopped: null,
    };
    this.children.set(pid, state);
    this.deps.stream.emit('childStarted', { pid });
    child.on('message', (raw: unknown) => this.onMessage(state, raw));
    // 'close' (not 'exit') comes after the IPC channel drained, so every message sent before death is in.
    child.once('close', (code: number | null, signal: NodeJS.Signals | null) =>
      this.onClose(state, code, signal),
    );
  }

  private onMessage(state: ChildState, raw: unknown): void {
    const message = asChildMessage(raw);
    if (message === null) return;
    switch (message.kind) {
      case 'ready':
        state.ready = true;
        this.deps.logger.debug?.(childReady(state.pid));
        // A stop sent while it booted reached no listener yet: say it again.
        if (this.stopMode !== 'none')
          this.sendTo(state, { kind: 'stop', urgent: this.stopMode === 'urgent' });
        return;
      case 'settled':
        this.summary.count(message.succeeded + message.failed, message.failed);
        return;
      case 'exiting':
        state.exitReason = message.reason;
        return;
      case 'alive':
        this.watchdog.beat(state.pid, message.blockingMs);
        return;
      case 'journalFailed':
        state.journalWhole = false;
        return;
      case 'hardStop':
        if (state.hardStopped !== null) return;
        state.hardStopped = { id: message.id, reason: message.reason };
        this.deps.logger.warn(childHardStopped(state.pid, message.id, message.reason));
        state.process.kill('SIGKILL');
        return;
    }
  }

  private onClose(state: ChildState, code: number | null, signal: NodeJS.Signals | null): void {
    this.children.delete(state.pid);
    this.watchdog.forget(state.pid);
    const cause = closeCause(state, code, signal);
    const reason = state.exitReason ?? 'crashed';
    this.deps.stream.emit('childExited', { pid: state.pid, cause, reason });
    // A child that found the store damaged, at work or booting, stops the pool before its
    // tasks are recovered (an urgent stop releases them) and before it could be replaced.
    if (foundStoreDamaged(state, code)) {
      const { alias: backend } = this.options;
      this.deps.storeCorrupt?.(new StoreCorruptError(poolStoppedStoreCorrupt(backend, state.pid)));
    }
    // A child that exited by itself settled everything first; one that crashed may have more leases.
    const crashed = state.exitReason === null && state.ready;
    const { held, unstarted } = HeldJournal.readHolding(state.journal);
    HeldJournal.remove(state.journal);
    if (held.length > 0 || crashed) {
      this.recovery.recover({
        pid: state.pid,
        held,
        unstarted,
        cause,
        searchLeases: crashed,
        journalWhole: state.journalWhole,
        release: releasesTasks(state, this.stopMode),
        hardStopped: state.hardStopped,
      });
    }
    if (this.stopMode === 'none' && state.exitReason !== 'drained') {
      if (state.ready) {
        this.spawn();
      } else {
        this.deps.logger.error(childBootFailed(state.pid, cause, this.deps.bootRetryMs));
        this.respawnLater();
      }
    }
    this.checkFinished();
  }

  private respawnLater(): void {
    const timer = setTimeout(() => {
      this.respawns.delete(timer);
      if (this.stopMode === 'none') this.spawn();
      this.checkFinished();
    }, this.deps.bootRetryMs);
    this.respawns.add(timer);
  }

  /** The watchdog found a child silent past its bound: it cannot stop by itself, so it is killed. */
  private killWedged(pid: number, silentForMs: number): void {
    const state = this.children.get(pid);
    if (!state) return;
    state.silentForMs = silentForMs;
    this.deps.logger.error(childWedged(pid, silentForMs, this.stopMode !== 'none'));
    state.process.kill('SIGKILL');
  }

  private killAfterGrace(child: ChildState): void {
    const timer = setTimeout(() => {
      if (!this.children.has(child.pid)) return;
      this.deps.logger.warn(childKilledAfterGrace(child.pid, this.deps.urgentGraceMs));
      child.process.kill('SIGKILL');
    }, this.deps.urgentGraceMs);
    child.process.once('close', () => clearTimeout(timer));
  }

  private sendTo(child: ChildState, message: ParentMessage): void {
    if (!child.process.connected) return;
    child.process.send(message, (error: Error | null) => {
      // The child may be exiting already; its 'close' handles whatever it held.
      if (error) this.deps.logger.debug?.(ipcSendFailed(child.pid, error));
    });
  }

  private checkFinished(): void {
    if (this.children.size > 0 || this.respawns.size > 0 || this.finish === null) return;
    if (this.stopMode === 'none') {
      if (!this.options.exitEmpty) return;
      this.deps.logger.log(poolDrained());
    }
    const finish = this.finish;
    this.finish = null;
    finish();
  }

  /** `work` (which never rejects), or less once the pool is asked to stop. */
  private unlessStopped(work: Promise<void>): Promise<void> {
    return Promise.race([work, this.stopping]);
  }
}

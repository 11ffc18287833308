import type { LoggerService } from '@nestjs/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { WorkerCrashed } from '../core/errors/worker-crashed.error';
import { isRetry, nextAttempt } from '../core/retry-policy';
import type { TaskBackend } from '../core/task-backend.interface';
import type { TaskRecord } from '../core/task-record.interface';
import { TaskResultStatus } from '../core/task-result-status.enum';
import { errorToRecord } from '../core/task-serializer';
import {
  brokerPassFailed,
  brokerStepFailed,
  childBootFailed,
  childForkFailed,
  childWedged,
  childExited,
  childKilledAfterGrace,
  childReady,
  childStarted,
  crashRecovered,
  crashRecoveryFailed,
  exitCause,
  ipcSendFailed,
  journalDirFailed,
  poolDrained,
  poolStarted,
  poolHeartbeatFailed,
  poolStopped,
  poolSummary,
  storeUnreachableAtStart,
  wedgedCause,
  workerCrashed,
} from '../core/worker.messages';
import { asChildMessage, type ChildExitReason, type ParentMessage } from './worker-ipc';
import { ChildWatchdog } from './child-watchdog';
import { HeldJournal } from './held-journal';
import type { WorkerOptions } from './worker-options.interface';

/** What the pool uses of a forked child: Node's ChildProcess, or a fake in unit tests. */
export interface ForkedChild {
  readonly pid?: number;
  readonly connected: boolean;
  send(message: ParentMessage, callback: (error: Error | null) => void): boolean;
  kill(signal: NodeJS.Signals): boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  once(event: 'error', listener: (error: Error) => void): unknown;
  once(
    event: 'close',
    listener: (code: number | null, signal: NodeJS.Signals | null) => void,
  ): unknown;
}

export interface WorkerPoolDeps {
  readonly backend: TaskBackend;
  /** This machine's name: the first part of every worker id of the children (`host:pid-slot`). */
  readonly host: string;
  readonly logger: LoggerService;
  /**
   * Starts one child running the same command (`fork` of this CLI with the
   * child marker), keeping the ids it holds in the HeldJournal at `journalPath`.
   */
  readonly forkChild: (journalPath: string) => ForkedChild;
  /** Where the folder of the children's journals is made; the system's temporary directory by default. */
  readonly journalRoot?: string;
  /** Period of the summary line (tasks done, failed, rate). */
  readonly summaryIntervalMs: number;
  /** Delay before replacing a child that died while booting, so a broken app does not spin. */
  readonly bootRetryMs: number;
  /** How long an urgently stopped child may take to release its tasks before it is killed. */
  readonly urgentGraceMs: number;
  /**
   * This pool's id in the backend (its children acquire under it). With it the
   * pool beats every broker interval, and once its beats stop for `poolTtlMs`
   * any other pool's broker recovers what it held. Without it, no heartbeat.
   */
  readonly poolId?: string;
  /** How long one beat keeps the pool alive (ms). */
  readonly poolTtlMs?: number;
  /** Period of the check for children whose liveness beats stopped. */
  readonly livenessCheckMs: number;
}

/** Most running tasks per queue searched for a crashed child's leases (one peek per queue). */
const LEASE_SEARCH_LIMIT = 1000;

/**
 * Once stopping, the longest the pool waits on a maintenance pass or its
 * retirement from the store. Both are idempotent upkeep (an abandoned pass
 * is the next pool's to repeat; an unretired heartbeat lapses by itself), so
 * an unreachable store must not hold a stopping pool for its command timeouts.
 */
const STOP_STORE_WAIT_MS = 1_000;

/** The pool's state as its health endpoint reports it. */
export interface PoolHealth {
  readonly stopping: boolean;
  /** Children booted and working (a child still booting is not alive yet). */
  readonly childrenAlive: number;
  readonly childrenExpected: number;
  /** When the last broker pass completed (epoch ms), or null before the first. */
  readonly lastBrokerPassAt: number | null;
  readonly brokerIntervalMs: number;
  readonly done: number;
  readonly failed: number;
  /** Children whose event loop stopped answering, killed and not yet gone. */
  readonly childrenWedged: number;
}

interface ChildState {
  readonly process: ForkedChild;
  readonly pid: number;
  /** Its HeldJournal: the task ids it acquired and has not stored or released. */
  readonly journal: string;
  ready: boolean;
  exitReason: ChildExitReason | null;
  /** Set when the pool killed it for not answering: how long it had been silent (ms). */
  silentForMs: number | null;
}

/**
 * The pool's main process: supervises `processes` children, runs the broker
 * (one maintenance pass per `backend.brokerIntervalMs`, here only, so a pool
 * of N children still makes one pass per interval), replaces children that
 * die or recycle themselves, and fails a dead child's tasks at once.
 */
export class WorkerPool {
  private readonly children = new Map<number, ChildState>();
  private readonly respawns = new Set<NodeJS.Timeout>();
  private readonly recoveries = new Set<Promise<void>>();
  private stopMode: 'none' | 'graceful' | 'urgent' = 'none';
  private done = 0;
  private failed = 0;
  private summarizedDone = 0;
  private summarizedAt = Date.now();
  private brokerTimer: NodeJS.Timeout | null = null;
  private brokerPass: Promise<void> | null = null;
  private summaryTimer: NodeJS.Timeout | null = null;
  private finish: (() => void) | null = null;
  private stopRequested: () => void = () => undefined;
  private readonly stopping = new Promise<void>((resolve) => (this.stopRequested = resolve));
  private lastBrokerPassAt: number | null = null;
  /** The children's journals live here while the pool runs. */
  private journalDir = '';
  private forked = 0;
  private readonly watchdog: ChildWatchdog;

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
  }

  /** Tasks finished by the pool's children (and failed by crash recovery). */
  get counts(): { done: number; failed: number } {
    return { done: this.done, failed: this.failed };
  }

  /** Children that booted and work: one still booting (a replacement, say) is not counted yet. */
  private readyChildren(): number {
    let ready = 0;
    for (const child of this.children.values()) if (child.ready) ready++;
    return ready;
  }

  /** Live children's pids. */
  get childPids(): number[] {
    return [...this.children.keys()];
  }

  /** What a liveness probe needs to know (see WorkerHealthServer). */
  get health(): PoolHealth {
    return {
      stopping: this.stopMode !== 'none',
      childrenAlive: this.readyChildren(),
      childrenExpected: this.options.processes,
      lastBrokerPassAt: this.lastBrokerPassAt,
      brokerIntervalMs: this.deps.backend.brokerIntervalMs,
      done: this.done,
      failed: this.failed,
      childrenWedged: this.watchdog.wedged,
    };
  }

  /** Resolves when the pool stopped (signal) or drained (`--exit-empty`). */
  async run(): Promise<void> {
    const { backend, processes, threads, queues } = this.options;
    this.deps.logger.log(poolStarted(process.pid, backend, queues, processes, threads));
    const finished = new Promise<void>((resolve) => (this.finish = resolve));
    this.journalDir = this.makeJournalDir();
    try {
      // Alive before any child acquires under this pool's id; then one pass, so due
      // deferred tasks are ready and --exit-empty sees them. A stop meanwhile ends the wait.
      await this.unlessStopped(this.checkStore());
      await this.unlessStopped(this.beat());
      await this.unlessStopped((this.brokerPass = this.runBrokerPass()));
      this.scheduleBroker();
      this.summaryTimer = setInterval(() => this.summarize(), this.deps.summaryIntervalMs);
      this.watchdog.start();
      for (let i = 0; i < processes && this.stopMode === 'none'; i++) this.spawn();
      this.checkFinished();
      await finished;
      this.watchdog.stop();
      await Promise.all(this.recoveries);
      await this.stopBroker();
      await withinMs(this.retire(), STOP_STORE_WAIT_MS);
      if (this.summaryTimer) clearInterval(this.summaryTimer);
      this.summarize();
      this.deps.logger.log(poolStopped(this.done, this.failed));
    } finally {
      try {
        rmSync(this.journalDir, { recursive: true, force: true });
      } catch {
        // It could not be made in the first place (see makeJournalDir), so it holds nothing.
      }
    }
  }

  /**
   * A folder of its own for the children's journals. Where the temporary
   * directory cannot be written, the children cannot journal either: each
   * says so once and works on, and a crashed child's tasks are then found by
   * the search of the running tasks (or the lease reaper).
   */
  private makeJournalDir(): string {
    const root = this.deps.journalRoot ?? tmpdir();
    const base = join(root, 'threadmill-pool-');
    try {
      return mkdtempSync(base);
    } catch (error) {
      this.deps.logger.error(journalDirFailed(root, error));
      return `${base}${process.pid}`;
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
    const journal = join(this.journalDir, `child-${++this.forked}.held`);
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
    };
    this.children.set(pid, state);
    this.deps.logger.log(childStarted(pid));
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
        this.done += message.succeeded + message.failed;
        this.failed += message.failed;
        return;
      case 'exiting':
        state.exitReason = message.reason;
        return;
      case 'alive':
        this.watchdog.beat(state.pid, message.blockingMs);
        return;
    }
  }

  private onClose(state: ChildState, code: number | null, signal: NodeJS.Signals | null): void {
    this.children.delete(state.pid);
    this.watchdog.forget(state.pid);
    const cause =
      state.silentForMs === null ? exitCause(code, signal) : wedgedCause(state.silentForMs);
    this.deps.logger.log(childExited(state.pid, cause, state.exitReason ?? 'crashed'));
    // A child that exited by itself settled everything first; one that crashed may have more leases.
    const crashed = state.exitReason === null && state.ready;
    const held = HeldJournal.read(state.journal);
    HeldJournal.remove(state.journal);
    if (held.length > 0 || crashed) {
      // Killed for silence while the pool stops: its tasks were not given up on, only out of time.
      const release = state.silentForMs !== null && this.stopMode !== 'none';
      this.track(this.recover(state.pid, held, cause, crashed, release));
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

  /**
   * A child died holding tasks: fail them now with WorkerCrashed (or, during an
   * urgent stop, put them back in their queue), instead of leaving them RUNNING
   * until the broker reaps the lease. A task the child managed to acknowledge
   * before dying is no longer RUNNING and is left as it is. After a crash the
   * running segments are also searched for tasks leased to this child's worker
   * ids, which covers an acquire whose reply arrived but whose ids the child
   * never got to report.
   */
  private async recover(
    pid: number,
    held: readonly string[],
    cause: string,
    searchLeases: boolean,
    release = false,
  ): Promise<void> {
    try {
      const byId = new Map<string, TaskRecord>();
      const found = await Promise.allSettled(held.map((id) => this.deps.backend.getResult(id)));
      for (const outcome of found) {
        if (outcome.status === 'fulfilled') byId.set(outcome.value.id, outcome.value);
      }
      if (searchLeases) for (const record of await this.leasedTo(pid)) byId.set(record.id, record);
      const running = [...byId.values()].filter((r) => r.status === TaskResultStatus.RUNNING);
      if (running.length === 0) return;
      if (this.stopMode === 'urgent' || release) {
        const released = await this.deps.backend.release(running);
        this.deps.logger.warn(crashRecovered(pid, 0, released));
        return;
      }
      // The crash ends this attempt: retried when its policy allows, FAILED otherwise.
      const now = new Date();
      const next = running.map((record) =>
        nextAttempt(
          record,
          errorToRecord(new WorkerCrashed(workerCrashed(record.id, record.task.name, pid, cause))),
          now,
        ),
      );
      const retries = next.filter(isRetry);
      const crashed = next.filter((record) => !isRetry(record));
      const [outcomes, retryOutcomes] = await Promise.all([
        crashed.length > 0 ? this.deps.backend.acknowledge(crashed) : [],
        retries.length > 0 ? this.deps.backend.retry(retries) : [],
      ]);
      const failed = outcomes.filter((o) => o === 'acknowledged').length;
      const retried = retryOutcomes.filter((o) => o === 'retried').length;
      this.done += failed;
      this.failed += failed;
      this.deps.logger.warn(crashRecovered(pid, failed, 0, retried));
    } catch (error) {
      this.deps.logger.error(crashRecoveryFailed(pid, held, error));
    }
  }

  /** RUNNING tasks whose latest worker id is one of this child's slots (`host:pid-slot`). */
  private async leasedTo(pid: number): Promise<TaskRecord[]> {
    const prefix = `${this.deps.host}:${pid}-`;
    const segments = await Promise.all(
      this.options.queues.map((queue) =>
        this.deps.backend.peek(queue, 'running', LEASE_SEARCH_LIMIT),
      ),
    );
    return segments.flat().filter((r) => r.workerIds[r.workerIds.length - 1]?.startsWith(prefix));
  }

  private track(recovery: Promise<void>): void {
    this.recoveries.add(recovery);
    void recovery.finally(() => this.recoveries.delete(recovery));
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

  // ---- broker ----

  private scheduleBroker(): void {
    this.brokerTimer = setTimeout(() => {
      this.brokerTimer = null;
      this.brokerPass = this.runBrokerPass().then(() => {
        this.brokerPass = null;
        if (this.finish !== null) this.scheduleBroker();
      });
    }, this.deps.backend.brokerIntervalMs);
  }

  /** Keeps this pool alive in the backend; a failed beat is logged, the next one tries again. */
  private async beat(): Promise<void> {
    const { poolId, poolTtlMs, backend } = this.deps;
    if (poolId === undefined || poolTtlMs === undefined) return;
    try {
      await backend.beatPool(poolId, poolTtlMs);
    } catch (error) {
      this.deps.logger.error(poolHeartbeatFailed(poolId, error));
    }
  }

  /** A clean stop: nothing is held any more, so the pool's heartbeat can go. */
  private async retire(): Promise<void> {
    const { poolId, backend } = this.deps;
    if (poolId === undefined) return;
    try {
      await backend.retirePool(poolId);
    } catch (error) {
      // Harmless: the heartbeat lapses by itself and the pool, holding nothing, is then forgotten.
      this.deps.logger.error(poolHeartbeatFailed(poolId, error));
    }
  }

  private async runBrokerPass(): Promise<void> {
    await this.beat();
    try {
      // Named, so a beat that failed to arrive never makes this pool recover its own tasks.
      const report = await this.deps.backend.brokerPass({ poolId: this.deps.poolId });
      this.lastBrokerPassAt = Date.now();
      for (const { step, error } of report.failedSteps) {
        this.deps.logger.error(brokerStepFailed(step, error));
      }
    } catch (error) {
      this.deps.logger.error(brokerPassFailed(error));
    }
  }

  private async stopBroker(): Promise<void> {
    if (this.brokerTimer) clearTimeout(this.brokerTimer);
    this.brokerTimer = null;
    if (this.brokerPass) await withinMs(this.brokerPass, STOP_STORE_WAIT_MS);
  }

  /** Says at once when the store does not answer, rather than through the first failing step. */
  private async checkStore(): Promise<void> {
    try {
      await this.deps.backend.ping();
    } catch (error) {
      this.deps.logger.error(storeUnreachableAtStart(this.options.backend, error));
    }
  }

  /** `work` (which never rejects), or less once the pool is asked to stop. */
  private unlessStopped(work: Promise<void>): Promise<void> {
    return Promise.race([work, this.stopping]);
  }

  private summarize(): void {
    const now = Date.now();
    const delta = this.done - this.summarizedDone;
    const rate = (delta * 1000) / Math.max(1, now - this.summarizedAt);
    this.summarizedDone = this.done;
    this.summarizedAt = now;
    // An idle pool stays quiet; the rate is over the last period only.
    if (delta === 0) return;
    this.deps.logger.log(poolSummary(this.done, this.failed, rate, this.children.size));
  }
}

/** `work` (which never rejects), or after `ms` if it takes longer. */
async function withinMs(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  try {
    await Promise.race([work, elapsed]);
  } finally {
    clearTimeout(timer);
  }
}

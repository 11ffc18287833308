import type { LoggerService } from '@nestjs/common';

import {
  CANCEL_POLL_MS,
  CANCEL_REQUEST_TTL_MS,
  CANCEL_VIEW_FRESH_MS,
} from '../../core/cancel-delivery';
import type { EventStream } from '../../core/event-stream';
import {
  inProcessHardStopImpossible,
  inProcessWorkerStarted,
  inProcessWorkerStopped,
  inProcessWorkerStoreCorrupt,
} from './in-process-worker.messages';
import { storeHealth } from '../../core/store-condition';
import type { TaskBackend } from '../../core/task-backend.interface';
import type { PoolSchedules } from '../../schedule/schedule.service';
import { WorkerChild } from '../child/worker-child';
import type { ChildMetrics, RunTask } from '../child/worker-child.deps';
import { MaintenanceSchedule } from '../pool/maintenance-schedule';
import { PoolSummary } from '../pool/pool-summary';
import type { PoolHealth } from '../pool/worker-pool.deps';
import { StoreDamage } from '../store-damage';
import type { ChildMessage } from '../worker-ipc';
import type { WorkerOptions } from '../worker-options.interface';
import {
  IDLE_ACQUIRE_WAIT_MS,
  LEASE_CHECK_MIN_MS,
  RETRY_DELAY_MS,
  SUMMARY_INTERVAL_MS,
} from '../worker.constants';

export interface InProcessPoolDeps {
  readonly backend: TaskBackend;
  readonly runTask: RunTask;
  readonly logger: LoggerService;
  readonly stream: EventStream;
  /** This machine's name: worker ids are `host:pid-slot`, as a pool child's. */
  readonly host: string;
  /** Its id in the store: it beats and leases under it, as a pool does. */
  readonly poolId: string;
  readonly schedules?: PoolSchedules;
  /** A task's declared `cancel.hardStopAfterMs`, by its name. */
  readonly hardStopAfterMs: (taskName: string) => number | undefined;
  /** The task metrics, when the app's `metrics` option is on. */
  readonly metrics?: ChildMetrics;
}

/**
 * A worker pool folded into one process, the app's: the pool's side (its
 * heartbeat, maintenance passes and schedules, MaintenanceSchedule; its counts,
 * PoolSummary) and one WorkerChild's slots, acquire lanes, outcome queue and
 * cancel watch, joined by a channel that is a function call instead of IPC.
 * What needs a second process is left out: no journal (a crash of this
 * process is recovered by another worker once its heartbeat lapses), no
 * liveness watchdog and no hard stop (nothing could kill a task without
 * killing the app; it is logged instead), no recycling.
 *
 * @internal
 */
export class InProcessPool {
  private readonly maintenance: MaintenanceSchedule;
  private readonly summary: PoolSummary;
  private readonly child: WorkerChild;
  private readonly damage: StoreDamage;
  private ready = false;
  private stopMode: 'none' | 'graceful' | 'urgent' = 'none';
  private stopRequested: () => void = () => undefined;
  private readonly stopping = new Promise<void>((resolve) => (this.stopRequested = resolve));

  constructor(
    private readonly options: WorkerOptions,
    private readonly deps: InProcessPoolDeps,
  ) {
    const { backend, logger } = deps;
    this.damage = new StoreDamage(logger, inProcessWorkerStoreCorrupt(), () => this.stop(true));
    const storeCorrupt = this.damage.report.bind(this.damage);
    this.summary = new PoolSummary(deps.stream, SUMMARY_INTERVAL_MS, () => this.alive);
    this.maintenance = new MaintenanceSchedule({
      ...deps,
      queues: options.queues,
      heartbeatToleranceMs: options.heartbeatToleranceMs,
      slots: options.threads,
      children: () => this.alive,
      storeCorrupt,
    });
    this.child = new WorkerChild(options, {
      backend,
      logger,
      storeCorrupt,
      runTask: deps.runTask,
      channel: { send: async (message) => this.heard(message) },
      journal: null,
      identity: `${deps.host}:${process.pid}`,
      idleWaitMs: IDLE_ACQUIRE_WAIT_MS,
      retryDelayMs: RETRY_DELAY_MS,
      poolId: deps.poolId,
      leaseCheckMs: Math.max(LEASE_CHECK_MIN_MS, 2 * backend.maintenanceIntervalMs),
      cancelPoll: {
        everyMs: CANCEL_POLL_MS,
        requestTtlMs: CANCEL_REQUEST_TTL_MS,
        freshMs: CANCEL_VIEW_FRESH_MS,
      },
      hardStopAfterMs: deps.hardStopAfterMs,
      metrics: deps.metrics,
    });
  }

  /** Its slots work (1), or not yet, or no more (0): what a pool counts as its children alive. */
  private get alive(): number {
    return this.ready && this.stopMode === 'none' ? 1 : 0;
  }

  /** What a pool's liveness probe reads (see assessPoolHealth): its one "child" is this process. */
  get health(): PoolHealth {
    const { backend } = this.deps;
    return {
      stopping: this.stopMode !== 'none',
      childrenAlive: this.alive,
      childrenExpected: 1,
      lastMaintenancePassAt: this.maintenance.lastPassAt,
      maintenanceIntervalMs: backend.maintenanceIntervalMs,
      ...this.summary.counts,
      childrenWedged: 0,
      store: storeHealth(backend.alias, backend.storeCondition?.() ?? null),
    };
  }

  /**
   * Works until stopped: the upkeep opened first (alive in the store before
   * anything is leased under its id), then the slots; resolves once what it
   * held is settled and its heartbeat retired. Rejects only when the store
   * is one the backend refuses.
   */
  async run(): Promise<void> {
    const { alias: backend, queues, threads } = this.options;
    this.deps.logger.log(inProcessWorkerStarted(backend, queues, threads, this.deps.poolId));
    try {
      await this.maintenance.open((work) => Promise.race([work, this.stopping]));
      this.summary.start();
      // A stop before this point has stopped the child already: it returns at once.
      await this.child.run();
    } finally {
      this.ready = false;
      await this.maintenance.stop();
      this.summary.stop();
    }
    const { done, failed } = this.summary.counts;
    this.deps.logger.log(inProcessWorkerStopped(done, failed));
  }

  /** Graceful: what runs finishes, what waits goes back. Urgent: what runs goes back too. */
  stop(urgent: boolean): void {
    if (this.stopMode === 'urgent' || (this.stopMode === 'graceful' && !urgent)) return;
    this.stopMode = urgent ? 'urgent' : 'graceful';
    this.stopRequested();
    this.child.stop(urgent);
  }

  /** What the child would tell its pool's main process, heard in the same process. */
  private heard(message: ChildMessage): void {
    switch (message.kind) {
      case 'ready':
        this.ready = true;
        return;
      case 'settled':
        this.summary.count(message.succeeded + message.failed, message.failed);
        return;
      case 'hardStop':
        // Only the task's own return can end it here (each limit asks once per task).
        this.deps.logger.error(inProcessHardStopImpossible(message.id, message.reason));
        return;
      default:
        // 'exiting', and what needs a second process to hear it (liveness, journal, metrics snapshots).
        return;
    }
  }
}

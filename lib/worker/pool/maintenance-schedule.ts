import type { LoggerService } from '@nestjs/common';

import { StoreCorruptError } from '../../core/errors/store-corrupt.error';
import { UnsupportedStoreError } from '../../core/errors/unsupported-store.error';
import type { EventStream } from '../../core/event-stream';
import type { TaskBackend } from '../../core/task-backend.interface';
import type { PoolInfo } from '../../core/task-listing';
import {
  maintenancePassFailed,
  pausedQueuesUnread,
  poolHeartbeatFailed,
  queuePausedAtStart,
  storeUnreachableAtStart,
} from '../worker.messages';
import type { PoolSchedules } from '../../schedule/schedule.service';
import { withinMs } from '../../utils/sleep.util';
import { runMaintenancePass } from '../../lifecycle/maintenance-pass';

/**
 * Once stopping, the longest the pool waits on a maintenance pass or its
 * retirement from the store. Both are idempotent upkeep (an abandoned pass
 * is the next pool's to repeat; an unretired heartbeat lapses by itself), so
 * an unreachable store must not hold a stopping pool for its command timeouts.
 */
const STOP_STORE_WAIT_MS = 1_000;

export interface MaintenanceScheduleDeps {
  readonly backend: TaskBackend;
  readonly logger: LoggerService;
  /** Told of each maintenance step that failed (the log line listens there). */
  readonly stream: EventStream;
  /**
   * This pool's id in the store (its children lease under it): with it the
   * pool beats before every pass, so other pools know it is alive.
   */
  readonly poolId?: string;
  /** How long one beat keeps the pool alive (ms). */
  readonly heartbeatToleranceMs?: number;
  /** The backend's schedules: synced once before the first pass, their due ticks enqueued after each. */
  readonly schedules?: PoolSchedules;
  /** The queues this pool consumes: those paused are named at start, and sent with each beat. */
  readonly queues?: readonly string[];
  /** This machine's name, sent with each beat (PoolInfo); without it, beats carry no info. */
  readonly host?: string;
  /** Task slots of the whole pool (processes x threads), sent with each beat. */
  readonly slots?: number;
  /** How many children are alive now, sent with each beat. */
  readonly children?: () => number;
  /** Told when a beat or a maintenance step finds the store damaged (no retry can help). */
  readonly storeCorrupt?: (error: StoreCorruptError) => void;
}

/**
 * The pool's dealings with the store on its own behalf: its heartbeat, one
 * maintenance pass per `backend.maintenanceIntervalMs` (here only, so a pool of N
 * children still makes one pass per interval), and its retirement when it
 * stops cleanly. Every failure is logged and the next beat or pass tries
 * again.
 *
 * @internal
 */
export class MaintenanceSchedule {
  private timer: NodeJS.Timeout | null = null;
  private pass: Promise<void> | null = null;
  private stopped = false;
  /** When the last pass completed (epoch ms), or null before the first. */
  lastPassAt: number | null = null;
  /** When this pool started, sent with each beat. */
  private readonly startedAt = new Date();

  constructor(private readonly deps: MaintenanceScheduleDeps) {}

  /**
   * Says at once when the store does not answer, rather than through the
   * first failing step; a store the backend refuses to use (an evicting Redis,
   * an old one) or a damaged one stops the pool before it starts anything.
   */
  async checkStore(): Promise<void> {
    try {
      await this.deps.backend.ping();
    } catch (error) {
      if (error instanceof UnsupportedStoreError || error instanceof StoreCorruptError) throw error;
      this.deps.logger.error(storeUnreachableAtStart(this.deps.backend.alias, error));
      return;
    }
    await this.namePausedQueues();
  }

  /** A pool that starts on a paused queue says so: otherwise its idle slots would be a mystery. */
  private async namePausedQueues(): Promise<void> {
    const { backend, logger, queues = [] } = this.deps;
    try {
      const paused = new Set(await backend.control.pausedQueues());
      for (const queue of queues.filter((q) => paused.has(q))) {
        logger.warn(queuePausedAtStart(backend.alias, queue));
      }
    } catch (error) {
      logger.warn(pausedQueuesUnread(backend.alias, error));
    }
  }

  /**
   * Keeps this pool alive in the store, saying what it is (PoolInfo) for the
   * list of pools; a failed beat is logged, the next one tries again.
   */
  async beat(): Promise<void> {
    const { poolId, heartbeatToleranceMs, backend } = this.deps;
    if (poolId === undefined || heartbeatToleranceMs === undefined) return;
    try {
      await backend.pools.beat(poolId, heartbeatToleranceMs, this.poolInfo());
    } catch (error) {
      if (!this.damaged(error)) this.deps.logger.error(poolHeartbeatFailed(poolId, error));
    }
  }

  private poolInfo(): PoolInfo | undefined {
    const { host, slots = 0, children, queues = [] } = this.deps;
    if (host === undefined) return undefined;
    const alive = children?.() ?? 0;
    return {
      host,
      pid: process.pid,
      children: alive,
      slots,
      queues: [...queues],
      startedAt: this.startedAt,
    };
  }

  /**
   * The declared schedules made the code's, before the first pass (so it
   * ticks what this code declares); never rejects.
   */
  async syncSchedules(): Promise<void> {
    await this.deps.schedules?.sync();
  }

  /** One beat and pass now; never rejects. */
  passNow(): Promise<void> {
    this.pass = this.runPass();
    return this.pass;
  }

  /**
   * The start of a pool's upkeep: the store checked, alive in it before
   * anything is acquired under its id, its schedules synced, one pass (so due
   * deferred tasks are ready, and the tasks of pools whose heartbeat lapsed
   * meanwhile, a crashed run of this very app among them, are recovered),
   * then a pass every interval. `unlessStopped` cuts a step short once the
   * pool is asked to stop; a store the backend refuses throws.
   */
  async open(unlessStopped: (work: Promise<void>) => Promise<void>): Promise<void> {
    await unlessStopped(this.checkStore());
    await unlessStopped(this.beat());
    await unlessStopped(this.syncSchedules());
    await unlessStopped(this.passNow());
    this.start();
  }

  /** A pass every interval from now on, until stop. */
  start(): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.passNow().then(() => {
        if (!this.stopped) this.start();
      });
    }, this.deps.backend.maintenanceIntervalMs);
  }

  /**
   * No more passes; a pass under way is waited for a moment only. A pool that
   * stopped cleanly holds nothing, so its heartbeat can go.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pass) await withinMs(this.pass, STOP_STORE_WAIT_MS);
    await withinMs(this.retire(), STOP_STORE_WAIT_MS);
  }

  private async runPass(): Promise<void> {
    await this.beat();
    try {
      // Named, so a beat that failed to arrive never makes this pool recover its own tasks.
      const report = await runMaintenancePass(
        this.deps.backend,
        { poolId: this.deps.poolId },
        this.deps.logger,
      );
      this.lastPassAt = Date.now();
      for (const { step, error } of report.failedSteps) {
        if (!this.damaged(error)) this.deps.stream.emit('maintenanceStepFailed', { step, error });
      }
    } catch (error) {
      if (!this.damaged(error)) this.deps.logger.error(maintenancePassFailed(error));
    }
    // Here only, in the pool's main process: one ticker per pool, never per child.
    await this.deps.schedules?.tick();
  }

  /** Reports a damaged store (it stops the pool, and its error is printed then); false for any other error. */
  private damaged(error: unknown): boolean {
    if (!(error instanceof StoreCorruptError) || !this.deps.storeCorrupt) return false;
    this.deps.storeCorrupt(error);
    return true;
  }

  private async retire(): Promise<void> {
    const { poolId, backend } = this.deps;
    if (poolId === undefined) return;
    try {
      await backend.pools.retire(poolId);
    } catch (error) {
      // Harmless: the heartbeat lapses by itself and the pool, holding nothing, is then forgotten.
      this.deps.logger.error(poolHeartbeatFailed(poolId, error));
    }
  }
}

import { Injectable, Logger } from '@nestjs/common';
import { fork } from 'node:child_process';
import { hostname } from 'node:os';

import {
  CANCEL_POLL_MS,
  CANCEL_REQUEST_TTL_MS,
  CANCEL_VIEW_FRESH_MS,
} from '../core/cancel-delivery';
import { currentTaskContext } from '../core/current-task';
import { EventStream } from '../core/event-stream';
import { DEFAULT_UNKNOWN_TASK_GRACE_MS } from '../lifecycle/unknown-task';
import type { TaskBackend } from '../core/task-backend.interface';
import { childStoreCorrupt, poolStoreCorrupt } from '../core/store.messages';
import { WORKER_CHILD_ENV } from '../core/threadmill.constants';
import { shutdownRequested, taskLeftRejection, taskLeftUncaughtException } from './worker.messages';
import { PoolMetrics } from '../metrics/pool-metrics';
import { loadPromClient } from '../metrics/prom-client.loader';
import { TaskMetrics } from '../metrics/task-metrics';
import { ScheduleService } from '../schedule/schedule.service';
import { TaskRegistry } from '../task/task.registry';
import { HeldJournal } from './held-journal';
import { LivenessBeat } from './child/liveness-beat';
import { ShutdownSignals } from './shutdown-signals';
import { StoreDamage } from './store-damage';
import { StreamLogListener } from './stream-log.listener';
import { TaskRunner } from './task-runner';
import { WorkerChild } from './child/worker-child';
import { type ParentChannel, asParentMessage, type ChildMessage } from './worker-ipc';
import type { WorkerOptions } from './worker-options.interface';
import { feedChildMetrics } from './pool/child-metrics-feed';
import { newPoolId } from './pool/pool-id';
import { WorkerHealthServer } from './pool/worker-health.server';
import { WorkerPool } from './pool/worker-pool';
import {
  BOOT_RETRY_MS,
  CHILD_EXIT_GRACE_MS,
  IDLE_ACQUIRE_WAIT_MS,
  LIVENESS_BEAT_MS,
  LIVENESS_CHECK_MS,
  LEASE_CHECK_MIN_MS,
  RETRY_DELAY_MS,
  SUMMARY_INTERVAL_MS,
  URGENT_GRACE_MS,
  WORKER_JOURNAL_ENV,
  WORKER_POOL_ENV,
} from './worker.constants';

/**
 * Wires the pool to the process it runs in: signals, `fork`, the IPC channel.
 * The main process runs a WorkerPool; a forked child (marked by
 * WORKER_CHILD_ENV) runs a WorkerChild inside the application context this
 * very CLI invocation already booted.
 *
 * @internal
 */
@Injectable()
export class WorkerLauncher {
  constructor(
    private readonly runner: TaskRunner,
    private readonly registry: TaskRegistry,
    private readonly schedules: ScheduleService,
    private readonly stream: EventStream,
  ) {}

  /** Whether this process is a child the pool forked. */
  get isChild(): boolean {
    return process.env[WORKER_CHILD_ENV] === '1' && typeof process.send === 'function';
  }

  async launch(backend: TaskBackend, options: WorkerOptions): Promise<void> {
    if (this.isChild) await this.runChild(backend, options);
    else await this.runPool(backend, options);
  }

  private async runPool(backend: TaskBackend, options: WorkerOptions): Promise<void> {
    const logger = new Logger('WorkerPool');
    const entry = process.argv[1];
    const args = process.argv.slice(2);
    const poolId = newPoolId();
    const prom = options.healthPort === undefined ? null : loadPromClient();
    const metrics =
      prom &&
      new PoolMetrics(prom, {
        backend,
        poolId,
        logger,
        childrenAlive: () => pool.health.childrenAlive,
      });
    const stopLogging = new StreamLogListener(this.stream, logger).pool();
    const damage = new StoreDamage(logger, poolStoreCorrupt(), () => pool.stop(true));
    const pool: WorkerPool = new WorkerPool(options, {
      backend,
      storeCorrupt: (error) => damage.report(error),
      host: hostname(),
      logger,
      stream: this.stream,
      forkChild: (journalPath) => {
        const child = fork(entry, args, {
          env: {
            ...process.env,
            [WORKER_CHILD_ENV]: '1',
            [WORKER_POOL_ENV]: poolId,
            [WORKER_JOURNAL_ENV]: journalPath,
          },
          stdio: 'inherit',
        });
        if (metrics) feedChildMetrics(child, metrics);
        return child;
      },
      summaryIntervalMs: SUMMARY_INTERVAL_MS,
      bootRetryMs: BOOT_RETRY_MS,
      urgentGraceMs: URGENT_GRACE_MS,
      poolId,
      heartbeatToleranceMs: options.heartbeatToleranceMs,
      livenessCheckMs: LIVENESS_CHECK_MS,
      schedules: this.schedules.forPool(backend, new Logger('Schedules')),
    });
    const signals = new ShutdownSignals(({ urgent, cause }) => {
      logger.log(shutdownRequested(cause, urgent));
      pool.stop(urgent);
    }).listen();
    // A parent that started the pool with an IPC channel (a supervisor such as
    // the sample's `npm start`) and died, even by SIGKILL, closes that channel:
    // the pool then stops gracefully rather than live on as an orphan.
    const onParentGone = (): void => signals.request({ urgent: false, cause: 'parent gone' });
    if (process.connected) {
      process.once('disconnect', onParentGone);
      // Watched, never waited on: the channel alone must not keep a drained pool alive.
      process.channel?.unref();
    }
    const healthServer =
      options.healthPort === undefined
        ? null
        : new WorkerHealthServer(options.healthPort, () => pool.health, metrics);
    try {
      await healthServer?.start();
      await pool.run();
      damage.rethrow();
    } finally {
      process.off('disconnect', onParentGone);
      signals.dispose();
      await healthServer?.close();
      stopLogging();
    }
  }

  private async runChild(backend: TaskBackend, options: WorkerOptions): Promise<void> {
    const logger = new Logger('Worker');
    const channel = processChannel();
    // Off unless the pool serves /metrics: then one map lookup and one observe per task.
    const prom = options.metrics ? loadPromClient() : null;
    const metrics = prom ? new TaskMetrics(prom) : undefined;
    const stopRecording = metrics?.listen(this.stream);
    // Decided once: with verbose off, nobody hears the task events and none is built.
    const stopLogging = Logger.isLevelEnabled('verbose')
      ? new StreamLogListener(this.stream, logger).tasks()
      : undefined;
    const journal = new HeldJournal(childJournalPath());
    const unknownTaskGraceMs = options.unknownTaskGraceMs ?? DEFAULT_UNKNOWN_TASK_GRACE_MS;
    const liveness = new LivenessBeat(
      (message) => {
        if (process.connected) process.send?.(message);
      },
      LIVENESS_BEAT_MS,
      (name) => {
        // A declared timeout is as long as the task means to hold its child, blocked or not.
        const options = this.registry.find(name)?.options;
        return options?.blockingMs ?? options?.timeoutMs;
      },
    );
    // No retry mends a damaged store, and nothing finished can be stored in it: stop at once.
    const damage = new StoreDamage(logger, childStoreCorrupt(), () => child.stop(true));
    const child: WorkerChild = new WorkerChild(options, {
      backend,
      storeCorrupt: (error) => damage.report(error),
      runTask: (record, cancel) => this.runner.run(record, cancel, unknownTaskGraceMs),
      channel,
      journal,
      logger,
      identity: `${hostname()}:${process.pid}`,
      idleWaitMs: IDLE_ACQUIRE_WAIT_MS,
      retryDelayMs: RETRY_DELAY_MS,
      poolId: process.env[WORKER_POOL_ENV] || undefined,
      leaseCheckMs: Math.max(LEASE_CHECK_MIN_MS, 2 * backend.maintenanceIntervalMs),
      cancelPoll: {
        everyMs: CANCEL_POLL_MS,
        requestTtlMs: CANCEL_REQUEST_TTL_MS,
        freshMs: CANCEL_VIEW_FRESH_MS,
      },
      hardStopAfterMs: (name) => this.registry.find(name)?.options.cancel?.hardStopAfterMs,
      liveness,
      metrics,
    });
    // What a task leaves behind must not take its neighbours down. A rejection
    // nobody handled harms nothing but its own promise: logged, and work goes on.
    // An uncaught exception may have left any state half-changed: the child
    // finishes what it runs and exits, and the pool starts a fresh one.
    const onRejection = (reason: unknown): void => {
      logger.error(taskLeftRejection(currentTaskContext()?.taskResult, reason));
    };
    const onException = (error: unknown): void => {
      logger.error(taskLeftUncaughtException(currentTaskContext()?.taskResult, error));
      child.recycle();
    };
    process.on('unhandledRejection', onRejection);
    process.on('uncaughtException', onException);
    liveness.start();
    // The child's own signals (a terminal's Ctrl-C reaches the whole process group)
    // and the pool's stop message feed one ShutdownSignals, so one Ctrl-C counts once.
    const signals = new ShutdownSignals(({ urgent }) => child.stop(urgent)).listen();
    const onMessage = (raw: unknown): void => {
      const message = asParentMessage(raw);
      if (message) signals.request({ urgent: message.urgent, cause: 'pool' });
    };
    // A pool that died without stopping us leaves no one to replace or recover: finish and go.
    const onDisconnect = (): void => signals.request({ urgent: false, cause: 'pool gone' });
    process.on('message', onMessage);
    process.once('disconnect', onDisconnect);
    try {
      const reason = await child.run();
      await channel.send({ kind: 'exiting', reason: damage.reported ? 'storeCorrupt' : reason });
      damage.rethrow();
    } finally {
      liveness.stop();
      stopRecording?.();
      stopLogging?.();
      process.off('unhandledRejection', onRejection);
      process.off('uncaughtException', onException);
      process.off('message', onMessage);
      process.off('disconnect', onDisconnect);
      signals.dispose();
      journal.close();
      if (process.connected) process.disconnect();
      // A task that never settled may have left a timer; do not let it keep this process.
      setTimeout(() => process.exit(), CHILD_EXIT_GRACE_MS).unref();
    }
  }
}

/** The journal the pool named for this child; only a pool starts children. */
function childJournalPath(): string {
  const path = process.env[WORKER_JOURNAL_ENV];
  if (!path) {
    throw new Error(
      `${WORKER_JOURNAL_ENV} is not set: worker children are started by \`threadmill worker\`, not by hand.`,
    );
  }
  return path;
}

/** The child's end of the fork IPC channel; a send resolves once the message left the process. */
function processChannel(): ParentChannel {
  return {
    send: (message: ChildMessage) =>
      new Promise<void>((resolve) => {
        if (!process.send || !process.connected) return resolve();
        // An error here means the pool is gone; 'disconnect' handles that.
        process.send(message, undefined, {}, () => resolve());
      }),
  };
}

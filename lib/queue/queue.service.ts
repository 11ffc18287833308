import { Injectable } from '@nestjs/common';
import { assertKnownQueue } from '../core/known-queue';
import { hasLimits, type QueueLimits } from '../core/queue-limits';
import type { TaskBackend } from '../core/task-backend.interface';
import { BackendRegistry } from '../backends/backend.registry';
import type { QueueState, QueueSummary, QueueTargetOptions } from './queue-state.interface';
import { aliasOption } from '../utils/alias-option.util';

/** The telemetry window `list` asks for; only its counts are reported, which no window changes. */
const COUNTS_WINDOW_MS = 60_000;

/**
 * Pauses and resumes queues for every worker pool at once, sets their
 * limits, and lists each queue's counts and state. The state is stored by
 * the backend: a pool started (or restarted) later sees it too. A paused
 * queue's tasks start nowhere (running ones finish, enqueue still stores
 * them) until it is resumed, when idle workers take them at once. A limited
 * queue starts at most what its limits leave room for, across every pool.
 *
 * @example
 * ```ts
 * constructor(private readonly queues: QueueService) {}
 *
 * await this.queues.pause('emails');
 * const [emails] = (await this.queues.list()).filter((q) => q.queue === 'emails');
 * await this.queues.resume('emails');
 * ```
 * @publicApi
 */
@Injectable()
export class QueueService {
  constructor(private readonly backends: BackendRegistry) {}

  /**
   * Stops every pool from starting tasks of `queue`; resolves once stored.
   *
   * @param queue a queue the backend configures.
   * @param options which backend alias.
   * @throws UnknownBackendError for an alias that is not configured.
   * @throws UnknownQueueError for a queue the backend does not configure.
   */
  async pause(queue: string, options: QueueTargetOptions = {}): Promise<void> {
    await this.knownQueueOf(queue, options).control.pauseQueue(queue);
  }

  /**
   * Lets every pool start tasks of `queue` again; idle workers take them at once.
   *
   * @param queue a queue the backend configures.
   * @param options which backend alias.
   * @throws UnknownBackendError for an alias that is not configured.
   * @throws UnknownQueueError for a queue the backend does not configure.
   */
  async resume(queue: string, options: QueueTargetOptions = {}): Promise<void> {
    await this.knownQueueOf(queue, options).control.resumeQueue(queue);
  }

  /**
   * Sets `queue`'s limits for every pool at once; null (or `{}`) lifts them.
   * Stored by the backend, it wins over the limits configured beside the
   * queue's name (those only seed a store that has none for the queue), so
   * it outlives restarts. Idle workers look again at once.
   *
   * @param queue a queue the backend configures.
   * @param limits `concurrency`: most tasks running at once; `rateLimit`: most starts per sliding window.
   * @param options which backend alias.
   * @throws UnknownBackendError for an alias that is not configured.
   * @throws UnknownQueueError for a queue the backend does not configure.
   */
  async setLimits(
    queue: string,
    limits: QueueLimits | null,
    options: QueueTargetOptions = {},
  ): Promise<void> {
    await this.knownQueueOf(queue, options).control.setQueueLimits(
      queue,
      hasLimits(limits) ? limits : null,
    );
  }

  /**
   * The state of one queue.
   *
   * @throws UnknownBackendError for an alias that is not configured.
   * @throws UnknownQueueError for a queue the backend does not configure.
   */
  async state(queue: string, options: QueueTargetOptions = {}): Promise<QueueState> {
    const backend = this.knownQueueOf(queue, options);
    const [paused, limits] = await Promise.all([
      backend.control.pausedQueues(),
      backend.control.queueLimits(),
    ]);
    return { paused: paused.includes(queue), limits: limits[queue] ?? null };
  }

  /**
   * Every queue of the backend, in its configured order, with its counts
   * (one telemetry read for all of them) and its state.
   *
   * @throws UnknownBackendError for an alias that is not configured.
   */
  async list(options: QueueTargetOptions = {}): Promise<QueueSummary[]> {
    const backend = this.backendOf(options);
    const [telemetry, pausedQueues, limits] = await Promise.all([
      backend.reads.telemetry(COUNTS_WINDOW_MS),
      backend.control.pausedQueues(),
      backend.control.queueLimits(),
    ]);
    const paused = new Set(pausedQueues);
    return backend.queues.map((queue) => ({
      queue,
      alias: backend.alias,
      backend: backend.alias,
      counts: telemetry.queues[queue].counts,
      state: { paused: paused.has(queue), limits: limits[queue] ?? null },
    }));
  }

  private backendOf(options: QueueTargetOptions): TaskBackend {
    return this.backends.get(aliasOption(options, 'QueueService') ?? this.backends.defaultAlias);
  }

  private knownQueueOf(queue: string, options: QueueTargetOptions): TaskBackend {
    const backend = this.backendOf(options);
    assertKnownQueue(backend.alias, backend.queues, queue);
    return backend;
  }
}

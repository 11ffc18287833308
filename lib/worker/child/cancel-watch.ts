import type { LoggerService } from '@nestjs/common';

import { CANCEL_IDLE_AFTER_MS } from '../../core/cancel-delivery';
import type { CancelRequest } from '../../core/ports/control-store.port';
import type { TaskBackend } from '../../core/task-backend.interface';
import { cancelPollFailed } from '../worker.messages';

export interface CancelWatchDeps {
  readonly backend: TaskBackend;
  readonly logger: LoggerService;
  /** The pool whose requests are read (every child of it reads the same ones). */
  readonly poolId: string;
  /** Period of the poll. */
  readonly everyMs: number;
  /** Age after which a request nobody handled is dropped (its task finished first). */
  readonly requestTtlMs: number;
  /** Oldest a read may be for `mayStart` to answer from it (see cancel-delivery). */
  readonly freshMs: number;
  /** Handles `request` if this child holds its lease; true when it may be dropped. */
  readonly cancel: (request: CancelRequest) => boolean;
  /** Whether the child holds anything a request could name (always, when left out). */
  readonly busy?: () => boolean;
  readonly now?: () => number;
}

/**
 * Delivers cancel requests to the tasks this child holds: one read of its
 * pool's requests per period (nothing on the per-task path), each handled
 * by the child, and the handled ones (or those gone stale) removed in one
 * more call, only when there are any. A request for a lease another child of
 * the pool holds is left for that child. The last read is also what the
 * child asks before it starts a leased task: whether it named the task, and
 * whether it is recent enough to answer at all. A child that held nothing
 * for CANCEL_IDLE_AFTER_MS skips its reads until it holds something again.
 *
 * @internal
 */
export class CancelWatch {
  private timer: NodeJS.Timeout | null = null;
  private reading: Promise<void> | null = null;
  /** The ids the last read named. */
  private named = new Set<string>();
  /** When the last read that succeeded was sent (this process's clock). */
  private readSentAt = Number.NEGATIVE_INFINITY;
  /** When the child was last seen holding something (this process's clock). */
  private busyAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly deps: CancelWatchDeps) {}

  /** A child's watch, when it belongs to a pool and polls (else null). */
  static of(
    child: Pick<CancelWatchDeps, 'backend' | 'logger'> & {
      poolId?: string;
      cancelPoll?: { everyMs: number; requestTtlMs: number; freshMs: number };
    },
    cancel: (request: CancelRequest) => boolean,
    busy?: () => boolean,
  ): CancelWatch | null {
    const { backend, logger, poolId, cancelPoll } = child;
    if (poolId === undefined || cancelPoll === undefined) return null;
    return new CancelWatch({ backend, logger, poolId, ...cancelPoll, cancel, busy });
  }

  start(): void {
    this.busyAt = this.now();
    this.timer = setInterval(() => this.tick(), this.deps.everyMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * Whether the leased task `id` may start now: true when the last read did
   * not name it and is recent; false when it named it (a cancel came first);
   * null when the last read is too old to tell (read again with `sync`).
   */
  mayStart(id: string): boolean | null {
    if (this.named.has(id)) return false;
    return this.now() - this.readSentAt < this.deps.freshMs ? true : null;
  }

  /** Resolves after a read sent from now on has ended (it may have failed). */
  async sync(): Promise<void> {
    if (this.reading) await this.reading;
    await this.poll();
  }

  /** The read under way, else a new one. */
  poll(): Promise<void> {
    if (this.reading) return this.reading;
    const reading = this.read().finally(() => {
      this.reading = null;
    });
    this.reading = reading;
    return reading;
  }

  /** A period's read, unless the child has held nothing for CANCEL_IDLE_AFTER_MS. */
  private tick(): void {
    const now = this.now();
    if (this.deps.busy?.() ?? true) this.busyAt = now;
    // Idle: a request could name nothing here, and mayStart reads again before a start.
    else if (now - this.busyAt >= CANCEL_IDLE_AFTER_MS) return;
    void this.poll();
  }

  /** One read and, when anything was handled or is stale, one removal. */
  private async read(): Promise<void> {
    const { backend, poolId } = this.deps;
    const sentAt = this.now();
    try {
      const requests = await backend.control.cancelRequests(poolId);
      this.named = new Set(requests.map((request) => request.id));
      this.readSentAt = sentAt;
      if (requests.length === 0) return;
      const staleBefore = Date.now() - this.deps.requestTtlMs;
      const done = requests.filter(
        (request) => this.deps.cancel(request) || request.requestedAt.getTime() < staleBefore,
      );
      if (done.length > 0) await backend.control.dropCancelRequests(poolId, done);
    } catch (error) {
      // A missed poll only delays a cancel: the request stays until handled.
      this.deps.logger.warn(cancelPollFailed(poolId, error));
    }
  }

  private now(): number {
    return this.deps.now?.() ?? performance.now();
  }
}

import type { LoggerService } from '@nestjs/common';

import type { TaskBackend } from '../../core/task-backend.interface';
import { cancelPollFailed } from '../../core/worker.messages';

export interface CancelWatchDeps {
  readonly backend: TaskBackend;
  readonly logger: LoggerService;
  /** The pool whose requests are read (every child of it reads the same ones). */
  readonly poolId: string;
  /** Period of the poll. */
  readonly everyMs: number;
  /** Age after which a request nobody handled is dropped (its task finished first). */
  readonly requestTtlMs: number;
  /** Stops the attempt of `id` if this child holds it; true when it did. */
  readonly cancel: (id: string) => boolean;
}

/**
 * Delivers cancel requests to the attempts this child runs: one read of its
 * pool's requests per period (nothing on the per-task path), the attempts it
 * holds stopped, and the requests it handled (or that went stale) removed in
 * one more call, only when there are any. A request for a task another child
 * of the pool holds is left for that child.
 *
 * @internal
 */
export class CancelWatch {
  private timer: NodeJS.Timeout | null = null;
  private polling = false;

  constructor(private readonly deps: CancelWatchDeps) {}

  /** A child's watch, when it belongs to a pool and polls (else null). */
  static of(
    child: Pick<CancelWatchDeps, 'backend' | 'logger'> & {
      poolId?: string;
      cancelPoll?: { everyMs: number; requestTtlMs: number };
    },
    cancel: (id: string) => boolean,
  ): CancelWatch | null {
    const { backend, logger, poolId, cancelPoll } = child;
    if (poolId === undefined || cancelPoll === undefined) return null;
    return new CancelWatch({ backend, logger, poolId, ...cancelPoll, cancel });
  }

  start(): void {
    this.timer = setInterval(() => void this.poll(), this.deps.everyMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One read and, when anything was handled or is stale, one removal. */
  async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    const { backend, poolId } = this.deps;
    try {
      const requests = await backend.cancelRequests(poolId);
      if (requests.length === 0) return;
      const staleBefore = Date.now() - this.deps.requestTtlMs;
      const done = requests
        .filter(
          (request) => this.deps.cancel(request.id) || request.requestedAt.getTime() < staleBefore,
        )
        .map((request) => request.id);
      if (done.length > 0) await backend.dropCancelRequests(poolId, done);
    } catch (error) {
      // A missed poll only delays a cancel: the request stays until handled.
      this.deps.logger.warn(cancelPollFailed(poolId, error));
    } finally {
      this.polling = false;
    }
  }
}

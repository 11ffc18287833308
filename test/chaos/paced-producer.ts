import type { RedisBackend } from '../../lib/backends/redis/redis.backend';
import { EnqueueOutcomeUnknownError } from '../../lib/core/errors/enqueue-outcome-unknown.error';
import { chaosRecord } from './chaos-harness';

/** One enqueue of the producer: when it was sent and answered, and how. */
export interface Sent {
  id: string;
  startedAt: number;
  endedAt: number;
  error?: Error;
}

/** Enqueues one task every `everyMs` without waiting for the replies, as request handlers do. */
export class PacedProducer {
  readonly sent: Sent[] = [];
  private readonly pending = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly backend: RedisBackend,
    private readonly alias: string,
    private readonly journal: string,
    /** How long each task runs. */
    private readonly taskMs: number,
    private readonly everyMs: number,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      const record = chaosRecord(this.alias, this.journal, this.taskMs);
      const startedAt = Date.now();
      const call = this.backend.tasks.enqueue(record).then(
        () => {
          this.sent.push({ id: record.id, startedAt, endedAt: Date.now() });
        },
        (error: Error) => {
          this.sent.push({ id: record.id, startedAt, endedAt: Date.now(), error });
        },
      );
      this.pending.add(call);
      void call.finally(() => this.pending.delete(call));
    }, this.everyMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([...this.pending]);
  }

  acknowledged(since = 0): string[] {
    return this.sent.filter((s) => !s.error && s.startedAt >= since).map((s) => s.id);
  }

  /** Ids whose enqueue failed with its outcome unknown: stored or not, never twice. */
  unknown(): string[] {
    return this.sent.filter((s) => s.error instanceof EnqueueOutcomeUnknownError).map((s) => s.id);
  }

  failures(): Error[] {
    return this.sent.flatMap((s) => (s.error ? [s.error] : []));
  }
}

import type { Logger } from '@nestjs/common';

import { AcknowledgementTimeout } from '../../core/errors/acknowledgement-timeout.error';
import type { BrokerPassReport } from '../../core/task-backend.interface';
import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import { acknowledgementTimeout } from '../../core/threadmill.messages';
import type { RedisBackendSettings } from './redis-backend-config.parser';
import type { RedisConnection } from './redis-connection';
import type { RedisKeys } from './redis-keys';
import { RedisRecordCodec, TASK_HASH_FIELDS } from './redis-record.codec';
import { WAKE_BOUND, type AcknowledgeItem, type RedisScripts } from './redis-scripts';

/** Most ids one script call moves or reaps: Lua's unpack() has a stack limit near 8000. */
export const MAX_PER_CALL = 1000;

type Step = 'promote' | 'reap' | 'trim' | 'heartbeat';

/**
 * One maintenance pass of a RedisBackend alias, run every brokerInterval by
 * the worker pool's main process: the mover promotes due deferred tasks, the
 * reaper fails tasks whose lease ended (AcknowledgementTimeout), history and
 * ingress are trimmed to resultTtl, and a heartbeat is written for health
 * checks. Each step is isolated: a failure is logged and reported, and the
 * other steps still run.
 *
 * @internal
 */
export class RedisBroker {
  constructor(
    private readonly settings: RedisBackendSettings,
    private readonly keys: RedisKeys,
    private readonly scripts: RedisScripts,
    private readonly connection: RedisConnection,
    private readonly codec: RedisRecordCodec,
    private readonly logger: Logger,
  ) {}

  async pass(): Promise<BrokerPassReport> {
    const report: BrokerPassReport = { promoted: 0, reaped: 0, trimmed: 0, failedSteps: [] };
    const now = Date.now();
    await this.step(report, 'promote', async () => {
      report.promoted = await this.promote(now);
    });
    await this.step(report, 'reap', async () => {
      report.reaped = await this.reap(now);
    });
    await this.step(report, 'trim', async () => {
      report.trimmed = await this.trim(now);
    });
    await this.step(report, 'heartbeat', () => this.heartbeat(now));
    return report;
  }

  private async step(
    report: BrokerPassReport,
    step: Step,
    run: () => Promise<void>,
  ): Promise<void> {
    try {
      await this.connection.run(run);
    } catch (error) {
      // Logged and reported, never thrown: the next step and the next pass must still run.
      this.logger.error(
        `broker step "${step}" failed: ${error instanceof Error ? error.message : String(error)}`,
      );
      report.failedSteps.push({ step, error });
    }
  }

  /** The mover: due deferred tasks into their ready queues, at most batchSize in all. */
  private async promote(now: number): Promise<number> {
    let remaining = this.settings.batchSize;
    let promoted = 0;
    for (const queue of this.settings.queues) {
      while (remaining > 0) {
        const moved = await this.scripts.promoteDeferred(
          {
            deferredKey: this.keys.deferred(queue),
            queueKey: this.keys.queue(queue),
            wakeKey: this.keys.wake(queue),
          },
          {
            nowMs: now,
            max: Math.min(remaining, MAX_PER_CALL),
            taskPrefix: this.keys.taskPrefix,
            wakeBound: WAKE_BOUND,
          },
        );
        promoted += moved;
        remaining -= moved;
        if (moved < MAX_PER_CALL) break;
      }
    }
    return promoted;
  }

  /**
   * The reaper: reads tasks whose lease ended, builds their FAILED records
   * here (the error text is ours, not Lua's), and stores them through the
   * acknowledge script with the deadline it read, so a task acknowledged or
   * leased again meanwhile is left alone.
   */
  private async reap(now: number): Promise<number> {
    const { client } = this.connection;
    let remaining = this.settings.batchSize;
    let reaped = 0;
    for (const queue of this.settings.queues) {
      if (remaining <= 0) break;
      const runningKey = this.keys.running(queue);
      const ids = await client.zrangebyscore(
        runningKey,
        '-inf',
        now,
        'LIMIT',
        0,
        Math.min(remaining, MAX_PER_CALL),
      );
      if (ids.length === 0) continue;
      const pipeline = client.pipeline();
      for (const id of ids) pipeline.hmget(this.keys.task(id), ...TASK_HASH_FIELDS);
      const replies = (await pipeline.exec()) ?? [];
      const items: AcknowledgeItem[] = ids.map((id, i) => {
        const [error, fields] = replies[i] ?? [null, null];
        const record = this.expired(id, queue, error ? null : (fields as (string | null)[]), now);
        return {
          runningKey,
          taskKey: this.keys.task(id),
          resultKey: this.keys.result(id),
          historyKey: this.keys.history(queue, 'failed'),
          id,
          json: this.codec.encodeFinished(record),
          finishedAtMs: now,
        };
      });
      const stored = await this.scripts.acknowledge(items, this.settings.resultTtl, now);
      const count = stored.filter(Boolean).length;
      reaped += count;
      remaining -= ids.length;
      if (count > 0)
        this.logger.warn(`reaped ${count} task(s) of queue "${queue}" whose lease ended`);
    }
    return reaped;
  }

  private expired(
    id: string,
    queue: string,
    fields: (string | null)[] | null,
    now: number,
  ): TaskRecord {
    let record: TaskRecord;
    try {
      record = this.codec.decodeLive(
        id,
        fields?.[0] ?? null,
        RedisRecordCodec.mutableFields(fields),
      );
    } catch (error) {
      this.logger.warn(`task ${id} has unreadable data while being reaped: ${String(error)}`);
      record = this.codec.unreadable(id, queue, new Date(now), []);
    }
    const message = acknowledgementTimeout(id, this.settings.leaseTtl);
    return {
      ...record,
      status: TaskResultStatus.FAILED,
      finishedAt: new Date(now),
      errors: [
        ...record.errors,
        {
          className: AcknowledgementTimeout.name,
          traceback: `${AcknowledgementTimeout.name}: ${message}`,
        },
      ],
    };
  }

  /** History and ingress older than resultTtl; returns how many entries went. */
  private async trim(now: number): Promise<number> {
    const cutoff = now - this.settings.resultTtl;
    const pipeline = this.connection.client.pipeline();
    for (const queue of this.settings.queues) {
      pipeline.zremrangebyscore(this.keys.history(queue, 'successful'), '-inf', cutoff);
      pipeline.zremrangebyscore(this.keys.history(queue, 'failed'), '-inf', cutoff);
      pipeline.zremrangebyscore(this.keys.ingress(queue), '-inf', cutoff);
    }
    let trimmed = 0;
    for (const [error, removed] of (await pipeline.exec()) ?? []) {
      if (error) throw error;
      trimmed += Number(removed);
    }
    return trimmed;
  }

  private async heartbeat(now: number): Promise<void> {
    // Outlives many missed passes, so a stalled broker shows as stale, not as never started.
    const ttl = Math.max(this.settings.resultTtl, 100 * this.settings.brokerInterval);
    await this.connection.client.set(this.keys.brokerHeartbeat, String(now), 'PX', ttl);
  }
}

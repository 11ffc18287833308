import type { LoggerService } from '@nestjs/common';

import type {
  MaintenancePassOptions,
  MaintenancePassReport,
  TaskBackend,
} from '../core/task-backend.interface';
import { leasesReaped, poolRecovered } from '../core/worker.messages';
import { endAttempt, leaseEnded, poolLost } from './ended-attempt';
import type { MaintenanceStore } from './maintenance-store.interface';
import type { Retention } from './retention';
import { runMaintenanceSteps } from './pass-steps';

/** The backend options a maintenance pass works with, as every backend resolved them. */
export interface MaintenanceLimits {
  readonly leaseTtl: number;
  readonly retention: Retention;
  /** Most tasks each step moves or ends per pass. */
  readonly batchSize: number;
}

/**
 * One maintenance pass, written once over every backend's MaintenanceStore:
 * due deferred tasks promoted, tasks whose lease ran out ended
 * (AcknowledgementTimeout: retried per their policy, else FAILED), the tasks
 * of pools whose heartbeat lapsed ended the same way (WorkerLost) and those
 * pools forgotten, finished tasks trimmed to their retention (age and count, by
 * queue and status) with the unique keys they held, and the pass recorded. A failing
 * step is reported and never stops the steps after it.
 */
export async function runMaintenancePass(
  store: MaintenanceStore,
  { alias, queues }: Pick<TaskBackend, 'alias' | 'queues'>,
  { leaseTtl: leaseTtlMs, retention, batchSize }: MaintenanceLimits,
  /** `poolId`: the pool running the pass, alive by definition, so never recovered by it. */
  { poolId: ownPoolId }: MaintenancePassOptions,
  logger?: LoggerService,
): Promise<MaintenancePassReport> {
  return runMaintenanceSteps({
    promote: () => store.promoteDue(batchSize),
    reap: async () => {
      const reaped = await store.endExpiredLeases(batchSize, (ended) =>
        endAttempt(ended, leaseEnded(ended.id, leaseTtlMs), new Date(), alias),
      );
      if (reaped > 0) logger?.warn(leasesReaped(alias, reaped));
      return reaped;
    },
    recover: async () => {
      let budget = batchSize;
      for (const poolId of await store.lapsedPools(batchSize, ownPoolId)) {
        if (budget <= 0) break;
        const { ended, forgotten } = await store.endPoolAttempts(poolId, budget, (attempt) =>
          endAttempt(
            attempt,
            poolLost(attempt.id, attempt.record?.task.name ?? '', poolId),
            new Date(),
            alias,
          ),
        );
        budget -= ended;
        if (ended > 0 || forgotten) {
          logger?.warn(poolRecovered(poolId, ended, forgotten));
        }
      }
      return batchSize - budget;
    },
    trim: async () => {
      // One rule for every backend: each queue and final status to its own limit.
      let trimmed = await store.trimCounts();
      for (const { queue, status, limit } of retention.limits(queues)) {
        trimmed += await store.trimFinished(queue, status, limit);
      }
      // Keys freed by tasks that finished or were trimmed: the key index stays bounded.
      await store.forgetFreeKeys(batchSize);
      return trimmed;
    },
    heartbeat: () => store.markPass(),
  });
}

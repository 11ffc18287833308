import type { LoggerService } from '@nestjs/common';

import type {
  MaintenancePassOptions,
  MaintenancePassReport,
} from '../core/ports/maintenance-store.port';
import type { TaskBackend } from '../core/task-backend.interface';
import { endAttempt, leaseEnded, poolLost } from './ended-attempt';
import { leasesReaped, poolRecovered } from './lifecycle.messages';
import { runMaintenanceSteps } from './pass-steps';

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
  { alias, queues, maintenance: store }: Pick<TaskBackend, 'alias' | 'queues' | 'maintenance'>,
  /** `poolId`: the pool running the pass, alive by definition, so never recovered by it. */
  { poolId: ownPoolId }: MaintenancePassOptions = {},
  logger?: LoggerService,
): Promise<MaintenancePassReport> {
  const { leaseTtl: leaseTtlMs, retention, batchSize } = store.limits;
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
      const entries = [...retention.limits(queues)];
      let trimmed = 0;
      if (store.trimAll) {
        trimmed = await store.trimAll(entries);
      } else {
        trimmed = await store.trimCounts();
        for (const { queue, status, limit } of entries) {
          trimmed += await store.trimFinished(queue, status, limit);
        }
      }
      // Keys freed by tasks that finished or were trimmed: the key index stays bounded.
      await store.forgetFreeKeys(batchSize);
      return trimmed;
    },
    heartbeat: () => store.markPass(),
  });
}

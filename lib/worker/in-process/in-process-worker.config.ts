import { InvalidBackendConfigError } from '../../core/errors/invalid-backend-config.error';
import {
  inProcessWorkerBackendNotConfigured,
  inProcessWorkerBackendRunsOnEnqueue,
  inProcessWorkerOptionInvalid,
  inProcessWorkerQueueNotConfigured,
} from './in-process-worker.messages';
import type { InProcessWorkerOptions } from '../../core/in-process-worker-options.interface';
import type { TaskBackend } from '../../core/task-backend.interface';
import { DEFAULT_UNKNOWN_TASK_GRACE_MS } from '../../lifecycle/unknown-task';
import { isExecutingBackend } from '../../core/task-executor.interface';
import type { BackendRegistry } from '../../backends/backend.registry';
import type { WorkerOptions } from '../worker-options.interface';
import {
  DEFAULT_LIVENESS_TIMEOUT_MS,
  DEFAULT_THREADS,
  heartbeatTolerance,
} from '../worker.constants';
import { aliasOption } from '../../utils/alias-option.util';

/** The in-process worker's backend and its options as a pool's, checked and with their defaults. */
export interface InProcessWorkerConfig {
  readonly backend: TaskBackend;
  readonly options: WorkerOptions;
}

/**
 * ThreadmillModule's `inProcessWorker` setting resolved against the configured
 * backends, as `threadmill worker` resolves its flags: the same defaults, the
 * same checks. A backend kept in this process (MemoryBackend) is fine here,
 * unlike in a pool: the slots are in the process that holds it.
 *
 * @throws InvalidBackendConfigError naming the option at fault.
 * @internal
 */
export function resolveInProcessWorker(
  setting: true | InProcessWorkerOptions,
  backends: BackendRegistry,
): InProcessWorkerConfig {
  const asked: InProcessWorkerOptions = setting === true ? {} : setting;
  const alias = aliasOption(asked, 'inProcessWorker') ?? backends.defaultAlias;
  const backend = backends.find(alias);
  if (!backend) {
    throw new InvalidBackendConfigError(
      inProcessWorkerBackendNotConfigured(alias, backends.aliases),
    );
  }
  if (isExecutingBackend(backend) && backend.runsOnEnqueue) {
    throw new InvalidBackendConfigError(inProcessWorkerBackendRunsOnEnqueue(alias));
  }
  const queues = asked.queues ?? [...backend.queues];
  if (!Array.isArray(queues) || queues.length === 0) {
    throw new InvalidBackendConfigError(
      inProcessWorkerOptionInvalid('queues', queues, 'a non-empty array of queue names'),
    );
  }
  const unknown = queues.find((queue) => !backend.queues.includes(queue));
  if (unknown !== undefined) {
    throw new InvalidBackendConfigError(
      inProcessWorkerQueueNotConfigured(unknown, alias, backend.queues),
    );
  }
  return {
    backend,
    options: {
      alias: alias,
      queues: [...new Set(queues)],
      processes: 1,
      threads: wholeNumber('threads', asked.threads, DEFAULT_THREADS, 1),
      // A process that is the app's cannot be replaced, so it never recycles itself.
      maxTasks: null,
      maxTasksJitter: 0,
      prefetch: wholeNumber('prefetch', asked.prefetch, 0, 0),
      exitEmpty: false,
      // No watchdog reads it: nothing could kill the app's own process for a blocked loop.
      livenessTimeoutMs: DEFAULT_LIVENESS_TIMEOUT_MS,
      heartbeatToleranceMs: heartbeatTolerance(
        asked.heartbeatToleranceMs === undefined
          ? undefined
          : wholeNumber('heartbeatToleranceMs', asked.heartbeatToleranceMs, 0, 1),
        backend,
      ),
      unknownTaskGraceMs: wholeNumber(
        'unknownTaskGraceMs',
        asked.unknownTaskGraceMs,
        DEFAULT_UNKNOWN_TASK_GRACE_MS,
        0,
      ),
    },
  };
}

function wholeNumber(option: string, value: unknown, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new InvalidBackendConfigError(
      inProcessWorkerOptionInvalid(option, value, `a whole number of at least ${min}`),
    );
  }
  return value;
}

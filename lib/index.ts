// The main entry point: what an app that enqueues and runs tasks needs, with
// no optional peer. The optional parts have entry points of their own:
// `@threadmill/nestjs/cli`, `/dashboard`, `/health` and `/sqlite`; what an
// app's tests use is in `/testing`, and what a store needs to be a backend
// (its parts, the guard, the contract suite) in `/backend`. Everything not
// exported from one of them is internal.
export * from './core/errors';
export type { BackendConfig } from './core/backend-config.interface';
export type {
  BackendTelemetry,
  QueueCounts,
  QueueRates,
  QueueStats,
} from './core/backend-telemetry.interface';
export type { TaskBackend } from './core/task-backend.interface';
export type { TaskTransaction } from './core/task-transaction';
export type { QueueSegment } from './core/queue-segment';
export type { CancelOutcome } from './core/ports/control-store.port';
export type { LiveTaskEventName } from './core/live-task-feed';
export type { WaitForResultOptions } from './core/wait-for-finished';
export type { AliasOption } from './core/alias-option.interface';
export { TaskContext } from './core/task-context';
export { currentTaskContext } from './core/current-task';
export { MAX_PROGRESS_BYTES, PROGRESS_INTERVAL_MS } from './core/task-progress';
export type {
  TaskBackoff,
  TaskOptions,
  TaskOverrides,
  TaskUniqueOptions,
  UniqueOverrides,
} from './core/task-options.interface';
export type { TaskUniqueness, UniqueMode } from './core/unique-key';
export type {
  ScheduledTick,
  TaskDescriptor,
  TaskErrorRecord,
  TaskRecord,
  TaskTraceContext,
} from './core/task-record.interface';
export type {
  ScheduleCatchUp,
  ScheduleOptions,
  ScheduleTiming,
  TaskSchedule,
} from './core/schedule-options.interface';
export type { ScheduleOrigin } from './core/ports/schedule-store.port';
export { TaskResult } from './core/task-result';
export { EnqueuedTaskResult } from './core/enqueued-task-result';
export { TaskResultStatus } from './core/task-result-status.enum';
export {
  DEFAULT_APP_NAME,
  DEFAULT_BACKEND_ALIAS,
  DEFAULT_QUEUE,
  MAX_JSON_DEPTH,
  PRIORITY_MAX,
  PRIORITY_MIN,
} from './core/threadmill.constants';

export { ThreadmillModule, type ThreadmillModuleAsyncOptions } from './threadmill.module';
export type { ThreadmillModuleOptions } from './threadmill-module-options.interface';
export type { InProcessWorkerOptions } from './core/in-process-worker-options.interface';
export type { JoinTransactionsOptions } from './core/join-transactions-options.interface';

export { Task } from './task/task.decorator';
export {
  TaskContract,
  defineTask,
  type TaskContractOptions,
  type TaskImplementationOptions,
} from './task/task-contract';
export { TaskService } from './task/task.service';
export { ENQUEUE_SLICE } from './task/enqueue-slices';
export {
  TaskControlService,
  type CancelWaitingOptions,
  type FinishedTaskFilter,
  type ManualControlOptions,
  type TaskCancellation,
  type TaskRetry,
  type WaitingTaskFilter,
} from './task/task-control.service';
export type { ManualRetryOutcome, RemoveOutcome } from './core/manual-retry';
export { TaskHandle } from './task/task-handle';
export type { TaskArgs, TaskClass, TaskMethodName, TaskReturn } from './task/task-method.types';
export {
  TaskEvents,
  type TaskEventListener,
  type TaskEventMap,
  type TaskEventName,
  type TaskEventSubscribeOptions,
  type TaskEventSubscription,
} from './task/task-events';
export type { TaskEventFilter } from './task/task-event-feed';
export {
  OnTaskEvent,
  type CrossProcessTaskEventName,
  type OnTaskEventOptions,
} from './task/on-task-event.decorator';
export { TaskRunner } from './worker/task-runner';
export { CancelHook } from './core/cancel-hook';
export { ScheduleService, type ScheduleLookup } from './schedule/schedule.service';
export type { ScheduleInfo } from './schedule/schedule-info';
export type { ResolvedCatchUp } from './schedule/due-ticks';

export { ThreadmillMetrics } from './metrics/threadmill.metrics';
export type { MetricsRegistry, ThreadmillMetricsOptions } from './core/metrics-options.interface';

export { QueueService } from './queue/queue.service';
export type { QueueState, QueueSummary, QueueTargetOptions } from './queue/queue-state.interface';
export type { QueueConfig, QueueLimits, QueueRateLimit } from './core/queue-limits';

export { BackendRegistry } from './backends/backend.registry';
export { getBackendToken } from './backends/get-backend-token.util';
export { InjectBackend } from './backends/inject-backend.decorator';
export { MemoryBackend } from './backends/memory/memory.backend';
export type { BackendOptions } from './backends/backend-options.interface';
export type { MemoryBackendOptions } from './backends/memory/memory-backend-options.interface';
export type { RetentionByStatus, RetentionLimit, RetentionOptions } from './core/retention';
export { RedisBackend } from './backends/redis/redis.backend';
export type {
  RedisBackendOptions,
  RedisSentinelOptions,
} from './backends/redis/redis-backend-options.interface';
export type { OutboxPool, RedisOutboxOptions } from './backends/outbox/outbox-options.interface';
export type { OutboxBacklog } from './core/outbox-backlog';
export { redisBackendConfigFromEnv } from './backends/redis/redis-backend-config.factory';

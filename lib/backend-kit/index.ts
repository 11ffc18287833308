// `@threadmill/nestjs/backend`: what a store needs to be a Threadmill
// backend. The parts it implements and the types they speak, the checks in
// front of every backend (StoreGuard, and PartsBackend, a base class that
// exposes the guarded parts) and the reading of its configuration
// (BackendConfigReader), what the lifecycle decides for it (the rules it is
// built with, decideCancel, the maintenance pass), and the contract suite it
// must pass, run with any test runner's functions. An app needs none of it:
// the main entry point has TaskBackend and the records an app reads.

// The backend and its parts.
export type { BackendFeatures, TaskBackend } from '../core/task-backend.interface';
export type { BackendConfig, BackendConstructor } from '../core/backend-config.interface';
export type { StoreRules } from '../core/ports/store-rules.port';
export type {
  EnqueuePlan,
  EnqueueWrite,
  KeyTaken,
  StoredKeyHold,
} from '../core/unique-enqueue-plan';
export type { LimitRoom } from '../core/queue-limits';
export { PORT_METHODS, type BackendPartName, type PortMethods } from '../core/ports/port-methods';
export type { TaskStore } from '../core/ports/task-store.port';
export type {
  AcknowledgeAndAcquireResult,
  AcknowledgeOutcome,
  AcquireOptions,
  LeaseStore,
  RetryOutcome,
} from '../core/ports/lease-store.port';
export type {
  CancelDecision,
  CancelOutcome,
  CancelRequest,
  CancelResult,
  CancelRule,
  ControlStore,
} from '../core/ports/control-store.port';
export type { ReadStore } from '../core/ports/read-store.port';
export type { FeedStore } from '../core/ports/feed-store.port';
export type { PoolStore } from '../core/ports/pool-store.port';
export type {
  ScheduleEntry,
  ScheduleLastTick,
  ScheduleOrigin,
  ScheduleStore,
  StoredSchedule,
} from '../core/ports/schedule-store.port';
export type {
  AbandonedAttempt,
  EndAttempt,
  MaintenanceLimits,
  MaintenancePassOptions,
  MaintenancePassReport,
  MaintenanceStore,
} from '../core/ports/maintenance-store.port';

// What the parts store, read and announce.
export type {
  ScheduledTick,
  TaskDescriptor,
  TaskErrorRecord,
  TaskRecord,
  TaskTraceContext,
} from '../core/task-record.interface';
export { TaskResultStatus } from '../core/task-result-status.enum';
export type { QueueSegment } from '../core/queue-segment';
export type { QueueConfig, QueueLimits, QueueRateLimit } from '../core/queue-limits';
export type {
  BackendTelemetry,
  QueueCounts,
  QueueRates,
  QueueStats,
} from '../core/backend-telemetry.interface';
export type {
  ActivityQuery,
  BackendActivity,
  PoolInfo,
  PoolStatus,
  QueueActivity,
  TaskListQuery,
  TaskPage,
} from '../core/task-listing';
export type {
  FeedUnsubscribe,
  FinishedTask,
  FinishedTasksListener,
} from '../core/finished-task-feed';
export type {
  LiveTaskEvent,
  LiveTaskEventName,
  LiveTaskEventsListener,
} from '../core/live-task-feed';
export type { StoreCondition, StorePersistence } from '../core/store-condition';
export type { StoreMigration } from '../core/store-migration';
export type { Retention, ResolvedLimit, RetentionOptions } from '../core/retention';

// Written once for every backend.
export { StoreGuard, type BackendParts } from '../backends/store-guard';
export { PartsBackend } from '../backends/parts-backend';
export { BackendConfigReader, type CommonBackendSettings } from '../backends/backend-config.reader';
export { storeRules } from '../lifecycle/store-rules';
export { decideCancel } from '../lifecycle/cancel-decision';
export { runMaintenancePass } from '../lifecycle/maintenance-pass';

// The contract suite.
export { describeBackendContract } from './contract/backend-contract';
export {
  newRecord,
  type ContractFactory,
  type ContractOptions,
  type ContractSettings,
  type ContractSubject,
} from './contract/contract-subject';
export type {
  ContractAssertion,
  ContractMatchers,
  ContractNegatable,
  ContractRunner,
} from './contract/contract-runner';

// `@threadmill/nestjs/testing`: what an app's own tests use to run its tasks
// with no store to set up (docs/testing.md). The memory backend runs each task
// inside `enqueue` (`immediate: true`) or leaves it for the test to take;
// TaskRunner runs a task the test leased, as a worker would; a maintenance
// pass run by hand moves due deferred tasks and ends expired leases. The
// backend and the runner are the main entry point's too; these are the same.
export { MemoryBackend } from '../backends/memory/memory.backend';
export type { MemoryBackendOptions } from '../backends/memory/memory-backend-options.interface';
export { TaskRunner } from '../worker/task-runner';
export { runMaintenancePass } from '../lifecycle/maintenance-pass';
export type {
  MaintenancePassOptions,
  MaintenancePassReport,
} from '../core/ports/maintenance-store.port';

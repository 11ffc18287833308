import type { TaskBackend } from './task-backend.interface';
import type { TaskRecord } from './task-record.interface';

/**
 * Runs one RUNNING record and returns it finished (SUCCESSFUL, FAILED or CANCELLED); never throws
 * for a failing task. The module hands one to backends that run tasks at enqueue, so
 * a backend never needs to know how tasks are found or called.
 */
export type TaskExecutor = (record: TaskRecord) => Promise<TaskRecord>;

/** A backend that runs each task inside `enqueue` (an "immediate" backend, like Django's). */
export interface ExecutingBackend extends TaskBackend {
  /** True when enqueue runs the task before it returns (so enqueue returns a finished record). */
  readonly runsOnEnqueue: boolean;
  /** Called once by the module at init, before anything can be enqueued through it. */
  setExecutor(executor: TaskExecutor): void;
}

export function isExecutingBackend(backend: TaskBackend): backend is ExecutingBackend {
  const candidate = backend as Partial<ExecutingBackend>;
  return (
    typeof candidate.setExecutor === 'function' && typeof candidate.runsOnEnqueue === 'boolean'
  );
}

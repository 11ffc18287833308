import { Injectable } from '@nestjs/common';

import {
  AttemptTimeout,
  TaskContext,
  TaskResult,
  TaskResultStatus,
  UnknownTaskError,
  assertJsonSafe,
  failedAttempt,
  normalizeJson,
  recordWith,
  runInTaskContext,
  unknownTask,
  type TaskRecord,
} from '../core';
import { BackendRegistry } from '../backends/backend.registry';
import { TaskEvents } from '../task/task-events';
import { TaskRegistry } from '../task/task.registry';

/**
 * Runs one acquired task in this process: resolves it by name, calls it on its
 * provider (dependency injection intact, a `TaskContext` first when the task
 * takes one) and returns the finished record. It never throws for a failing
 * task and never acknowledges: the caller stores the record.
 *
 * @example
 * ```ts
 * const [record] = await backend.acquire(['default'], { workerId, timeoutMs: 1000 });
 * const finished = await runner.run(record);
 * await backend.acknowledge([finished]);
 * ```
 * @publicApi
 */
@Injectable()
export class TaskRunner {
  constructor(
    private readonly registry: TaskRegistry,
    private readonly backends: BackendRegistry,
    private readonly events: TaskEvents,
  ) {}

  /**
   * @param record a RUNNING record as `acquire` returned it.
   * @returns the record SUCCESSFUL with the JSON-normalized return value, or FAILED with
   *   the thrown value appended to `errors`; `finishedAt` set either way.
   */
  async run(record: TaskRecord): Promise<TaskRecord> {
    const source = this.backends.sourceFor(record.task.backend);
    const definition = this.registry.find(record.task.name);
    if (!definition) {
      // Never fall back to another task: running the wrong code is worse than not running.
      const failed = failedAttempt(record, new UnknownTaskError(unknownTask(record.task.name)));
      this.events.emit('finished', new TaskResult(failed, source));
      return failed;
    }
    this.events.emit('started', new TaskResult(record, source));
    // A per-call limit was stored with the task; the declared one applies otherwise.
    const timeout = new AttemptTimeout(
      record,
      record.task.timeoutMs ?? definition.options.timeoutMs,
    );
    let finished: TaskRecord;
    try {
      // Every task runs in its context, so currentTaskContext() (and the child's
      // report of a rejection the task left behind) can tell which task it is.
      const context = new TaskContext(new TaskResult(record, source), timeout.signal);
      const returned: unknown = await runInTaskContext(context, () =>
        definition.invoke(record.args, definition.options.takesContext ? context : null),
      );
      // Past its deadline an attempt has failed, whatever the method returned after it.
      finished = timeout.error
        ? failedAttempt(record, timeout.error)
        : this.successful(record, returned);
    } catch (thrown) {
      finished = failedAttempt(record, timeout.error ?? thrown);
    } finally {
      timeout.end();
    }
    this.events.emit('finished', new TaskResult(finished, source));
    return finished;
  }

  private successful(record: TaskRecord, returned: unknown): TaskRecord {
    if (returned !== undefined) {
      try {
        assertJsonSafe(returned, record.task.name, 'return value');
      } catch (error) {
        return failedAttempt(record, error);
      }
    }
    return recordWith(record, {
      status: TaskResultStatus.SUCCESSFUL,
      finishedAt: new Date(),
      returnValue: normalizeJson(returned),
    });
  }
}

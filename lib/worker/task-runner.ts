import { Injectable, Logger } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { unknownTaskUnleased } from '../lifecycle/unknown-task';
import { AttemptControl } from './attempt-control';
import { announceEndedAttempt } from '../core/attempt-outcome';
import type { ProgressEntry } from '../core/attempt-progress';
import { CancelHook } from '../core/cancel-hook';
import { cancelledRecord } from '../lifecycle/cancelled-record';
import { runInTaskContext } from '../core/current-task';
import { TaskCancelledError } from '../core/errors/task-cancelled.error';
import { UnknownTaskError } from '../core/errors/unknown-task.error';
import { EventStream } from '../core/event-stream';
import { ProgressBatcher } from '../core/progress-batcher';
import { progressNotStored } from '../core/progress.messages';
import { recordWith } from '../core/record-with';
import { TaskContext } from '../core/task-context';
import { failedAttempt } from '../lifecycle/retry-policy';
import type { TaskRecord } from '../core/task-record.interface';
import { TaskResult } from '../core/task-result';
import { TaskResultStatus } from '../core/task-result-status.enum';
import { assertJsonSafe, normalizeJson } from '../core/task-serializer';
import { unknownTask } from '../core/threadmill.messages';
import { BackendRegistry } from '../backends/backend.registry';
import type { TaskDefinition } from '../task/task-definition';
import type { AttemptSpan } from '../telemetry/attempt-span';
import { taskTracer } from '../telemetry/task-tracer';
import { TaskRegistry } from '../task/task.registry';
import { UnknownNames } from './unknown-names';

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
  private readonly logger = new Logger(TaskRunner.name);
  /** The progress writes of every task this process runs: one store call per alias per interval. */
  private readonly progress = new ProgressBatcher((alias, entries) =>
    this.storeProgress(alias, entries),
  );

  /** Names this worker gave tasks back for, logged now and then, not per task. */
  private readonly unknownNames = new UnknownNames(this.logger);

  constructor(
    private readonly registry: TaskRegistry,
    private readonly backends: BackendRegistry,
    private readonly stream: EventStream,
  ) {}

  /**
   * @param record a RUNNING record as `acquire` returned it.
   * @param cancel aborted (or requested, for a CancelHook) when the task's
   *   cancel is requested: the attempt's signal aborts with a
   *   TaskCancelledError and the attempt ends CANCELLED.
   * @param unknownTaskGraceMs how long a task whose name this app does not
   *   register is given back for a worker that does; absent, it fails at once.
   * @returns the record SUCCESSFUL with the JSON-normalized return value, FAILED with
   *   the thrown value appended to `errors`, or CANCELLED; `finishedAt` set either way;
   *   carrying `progress`, the last value the attempt reported (when it reported any, and
   *   it is not going back for a retry), which `acknowledge` stores with the outcome.
   *   READY, unstarted, when it was given back for its name (unknownTaskUnleased).
   */
  run(
    record: TaskRecord,
    cancel?: AbortSignal | CancelHook,
    unknownTaskGraceMs?: number,
  ): Promise<TaskRecord> {
    const definition = this.registry.find(record.task.name);
    // Never fall back to another task: running the wrong code is worse than not running.
    if (!definition) return Promise.resolve(this.unknown(record, unknownTaskGraceMs));
    // Null unless an OpenTelemetry SDK is registered: then the attempt is a CONSUMER span.
    const span = taskTracer.startAttempt(record);
    // Untraced, the attempt's own promise is the answer: no wrapper per task.
    if (span === null) return this.attempt(definition, record, null, cancel);
    return this.attempt(definition, record, span, cancel).then((finished) => {
      span.end(finished);
      return finished;
    });
  }

  /**
   * A task this app registers no @Task for: given back for a worker that
   * does while `graceMs` allows (a pool passes its `--unknown-task-grace`),
   * else its attempt fails (at once when no grace is given).
   */
  private unknown(record: TaskRecord, graceMs: number | undefined): TaskRecord {
    const startedAt = performance.now();
    const source = this.backends.sourceFor(record.task.backend);
    const back = graceMs === undefined ? null : unknownTaskUnleased(record, new Date(), graceMs);
    if (back !== null) {
      this.unknownNames.seen(record.task.name);
      if (this.stream.listens('taskUnleased')) {
        this.stream.emit('taskUnleased', { record: back, source });
      }
      return back;
    }
    const failed = failedAttempt(record, new UnknownTaskError(unknownTask(record.task.name)));
    announceEndedAttempt(this.stream, failed, source, startedAt);
    return failed;
  }

  private async attempt(
    definition: TaskDefinition,
    record: TaskRecord,
    span: AttemptSpan | null,
    cancel: AbortSignal | CancelHook | undefined,
  ): Promise<TaskRecord> {
    const startedAt = performance.now();
    const source = this.backends.sourceFor(record.task.backend);
    // A worker emits several events per task, mostly to nobody: none is built then.
    if (this.stream.listens('taskStarted')) this.stream.emit('taskStarted', { record, source });
    // A per-call limit was stored with the task; the declared one applies otherwise.
    const control = new AttemptControl(
      record,
      record.task.timeoutMs ?? definition.options.timeoutMs,
      cancel,
    );
    let finished: TaskRecord;
    // Every task runs in its context, so currentTaskContext() (and the child's
    // report of a rejection the task left behind) can tell which task it is.
    const context = new TaskContext(new TaskResult(record, source), control, this.progress);
    try {
      // Cancelled before it started: the method is never called.
      if (control.error) throw control.error;
      // Inside the attempt's span, so the spans the task's own code makes nest under it.
      const returned: unknown = await (span === null
        ? this.invoke(definition, record, context)
        : span.run(() => this.invoke(definition, record, context)));
      // Past its deadline or cancelled, an attempt has ended so, whatever the method returned after it.
      finished = control.error
        ? this.stopped(record, control.error)
        : this.successful(record, returned);
    } catch (thrown) {
      finished = this.stopped(record, control.error ?? thrown);
    } finally {
      control.end();
    }
    // The last progress reported rides with the outcome (stored in the same step); a retry's is written first.
    const ending = context.endProgress(finished);
    if (ending !== null) finished = await ending;
    announceEndedAttempt(this.stream, finished, source, startedAt);
    return finished;
  }

  private invoke(definition: TaskDefinition, record: TaskRecord, context: TaskContext): unknown {
    return runInTaskContext(context, () =>
      definition.invoke(record.args, definition.options.takesContext ? context : null),
    );
  }

  /** Stores the progress of running attempts of one alias in one call (the batcher's); never rejects. */
  private async storeProgress(alias: string, entries: readonly ProgressEntry[]): Promise<void> {
    try {
      const backend = this.backends.get(alias);
      // An entry not stored is no longer held (its lease was taken back): its outcome will be refused too.
      const stored = await backend.leases.storeProgress(entries);
      if (!this.stream.listens('taskProgressed')) return;
      const source = this.backends.sourceFor(alias);
      entries.forEach(({ record, value }, i) => {
        if (!stored[i]) return;
        this.stream.emit('taskProgressed', { record: { ...record, progress: value }, source });
      });
    } catch (error) {
      // Progress is advisory: a store that failed must not fail the task.
      const reason = error instanceof Error ? error.message : String(error);
      this.logger.warn(
        progressNotStored(
          entries.map((entry) => entry.record),
          reason,
        ),
      );
    }
  }

  /** A cancel ends the attempt CANCELLED (final); anything else fails it. */
  private stopped(record: TaskRecord, reason: unknown): TaskRecord {
    return reason instanceof TaskCancelledError
      ? cancelledRecord(record, new Date(), reason)
      : failedAttempt(record, reason);
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

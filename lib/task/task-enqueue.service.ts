import { Injectable } from '@nestjs/common';
import { EnqueuedTaskResult } from '../core/enqueued-task-result';
import { InvalidTaskError } from '../core/errors/invalid-task.error';
import { PartialEnqueueError } from '../core/errors/partial-enqueue.error';
import { EventStream } from '../core/event-stream';
import type { TaskBackend } from '../core/task-backend.interface';
import { isExecutingBackend } from '../core/task-executor.interface';
import type { TaskOverrides } from '../core/task-options.interface';
import type { ScheduledTick, TaskRecord, TaskTraceContext } from '../core/task-record.interface';
import type { TaskTransaction } from '../core/task-transaction';
import { TransactionNotSupportedError } from '../core/errors/transaction-not-supported.error';
import { transactionNotSupported } from '../core/transaction.messages';
import { backendNotConfigured, idNeedsOneTask, partialEnqueue } from '../core/threadmill.messages';
import { BackendRegistry } from '../backends/backend.registry';
import { taskTracer } from '../telemetry/task-tracer';
import { enqueueInSlices, type SlicedEnqueue } from './enqueue-slices';
import type { TaskTarget } from './task-definition';
import { buildTaskRecord } from './task-record.builder';
import { TransactionJoin } from './transaction-join';
import { aliasOption } from '../utils/alias-option.util';

/**
 * The one way a task gets stored, whichever call TaskService took: the
 * records built and checked, a producer span around them when the caller
 * is inside a trace, the store called in slices, and `taskEnqueued` announced
 * on the event stream for each task the call made.
 *
 * @internal
 */
@Injectable()
export class TaskEnqueueService {
  constructor(
    private readonly backends: BackendRegistry,
    private readonly stream: EventStream,
    private readonly join: TransactionJoin,
  ) {}

  /**
   * Stores one run per argument list of `target` on the backend its
   * overrides name. Not async: the untraced path hands back store's promise,
   * with no wrapper per call; a throw here reaches the async callers as
   * their rejection.
   */
  enqueue<T>(
    target: TaskTarget,
    argsList: readonly (readonly unknown[])[],
    overrides: TaskOverrides,
    tick?: ScheduledTick,
  ): Promise<EnqueuedTaskResult<T>[]> {
    const backend = this.backendFor(target, overrides);
    if (overrides.id !== undefined && argsList.length > 1) {
      throw new InvalidTaskError(idNeedsOneTask(target.name, argsList.length));
    }
    const parent = taskTracer.enqueueContext();
    // Outside a trace (or without @opentelemetry/api) nothing about tracing is built or stored.
    if (parent === null) return this.store<T>(target, backend, argsList, overrides, tick);
    return taskTracer.traceEnqueue(
      parent,
      {
        taskName: target.name,
        queue: overrides.queue ?? target.options.queue,
        alias: backend.alias,
        count: argsList.length,
      },
      (traceContext) => this.store<T>(target, backend, argsList, overrides, tick, traceContext),
    );
  }

  private async store<T>(
    target: TaskTarget,
    backend: TaskBackend,
    argsList: readonly (readonly unknown[])[],
    overrides: TaskOverrides,
    tick: ScheduledTick | undefined,
    traceContext?: TaskTraceContext,
  ): Promise<EnqueuedTaskResult<T>[]> {
    const now = new Date();
    const records = argsList.map((args) =>
      buildTaskRecord(target, backend, args, overrides, now, tick, traceContext),
    );
    // An explicit transaction wins; else the open one of @nestjs-cls/transactional, when joined.
    const transaction = overrides.transaction ?? this.join.current();
    const { stored, failure } = await (transaction
      ? this.storeInTransaction(target, backend, transaction, records)
      : enqueueInSlices(backend, records));
    const source = this.backends.sourceFor(backend.alias);
    // A key's holder comes back in place of the record sent, under its own id.
    // Through an outbox, a unique key is decided at the move: such a handle is pending until then.
    const awaitMoved =
      transaction && backend.tasks.awaitMoved
        ? backend.tasks.awaitMoved.bind(backend.tasks)
        : undefined;
    const results = stored.map((record, i) =>
      awaitMoved && record.task.unique !== undefined
        ? new EnqueuedTaskResult<T>(record, source, false, awaitMoved)
        : new EnqueuedTaskResult<T>(record, source, record.id === records[i].id),
    );
    // An immediate backend already announced the enqueue before running the task.
    if (
      this.stream.listens('taskEnqueued') &&
      !(isExecutingBackend(backend) && backend.runsOnEnqueue)
    ) {
      results.forEach((result, i) => {
        if (result.created) this.stream.emit('taskEnqueued', { record: stored[i], source, result });
      });
    }
    if (failure === undefined) return results;
    // Nothing stored: the bulk was all or none after all, and its error says so.
    if (results.length === 0) throw failure;
    throw new PartialEnqueueError(
      partialEnqueue(backend.alias, target.name, results.length, records.length, failure.message),
      results,
      { cause: failure },
    );
  }

  /**
   * All the records in the app's transaction, in one call: whatever their
   * number, they commit or roll back with it, so slices would promise
   * nothing more.
   */
  private async storeInTransaction(
    target: TaskTarget,
    backend: TaskBackend,
    transaction: TaskTransaction,
    records: readonly TaskRecord[],
  ): Promise<SlicedEnqueue> {
    if (!backend.tasks.enqueueInTransaction) {
      throw new TransactionNotSupportedError(
        transactionNotSupported(target.name, backend.alias, backend.constructor.name),
      );
    }
    return { stored: await backend.tasks.enqueueInTransaction(transaction, records) };
  }

  private backendFor(target: TaskTarget, overrides: TaskOverrides): TaskBackend {
    const alias =
      aliasOption(overrides, 'using(...)') ?? target.options.alias ?? this.backends.defaultAlias;
    const backend = this.backends.find(alias);
    if (!backend) {
      throw new InvalidTaskError(backendNotConfigured(target.name, alias, this.backends.aliases));
    }
    return backend;
  }
}

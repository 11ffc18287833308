import { hostname } from 'node:os';
import { InvalidBackendConfigError } from '../../core/errors/invalid-backend-config.error';
import { InvalidTaskError } from '../../core/errors/invalid-task.error';
import type { TaskExecutor } from '../../core/task-executor.interface';
import type { StoreRules } from '../../core/ports/store-rules.port';
import type { TaskRecord } from '../../core/task-record.interface';
import { deferNotSupported, immediateWithoutExecutor } from '../../core/threadmill.messages';
import { copyRecord } from './memory-record-copy';
import type { MemoryStore } from './memory-store';

/**
 * Immediate mode (`options.immediate`): each enqueued task is stored, leased
 * and run by the executor before `enqueue` returns, then stored finished,
 * so it passes through the same segments as a task a worker runs.
 *
 * @internal
 */
export class MemoryImmediateRunner {
  private readonly workerId = `${hostname()}:${process.pid}-immediate`;
  private executor: TaskExecutor | null = null;

  constructor(
    private readonly alias: string,
    private readonly store: MemoryStore,
    private readonly rules: StoreRules,
  ) {}

  setExecutor(executor: TaskExecutor): void {
    this.executor = executor;
  }

  /** Throws unless `record` can run now: it has no runAfter, and an executor is set. */
  assertRunnable(record: TaskRecord): void {
    if (record.task.runAfter) {
      throw new InvalidTaskError(deferNotSupported(record.task.name, this.alias));
    }
    if (!this.executor) throw new InvalidBackendConfigError(immediateWithoutExecutor(this.alias));
  }

  /** Runs `record` to its end; a copy of it finished. */
  async run(record: TaskRecord): Promise<TaskRecord> {
    const { store } = this;
    const now = Date.now();
    store.add(copyRecord(record), now);
    store.queue(record.task.queue).ready.remove(record.id);
    const running = store.start(record.id, record.task.queue, this.workerId);
    let finished: TaskRecord;
    try {
      finished = await (this.executor as TaskExecutor)(running);
    } catch (error) {
      // The executor records task failures itself; this is a failure of the executor.
      finished = this.rules.failed(running, error);
    }
    if (store.leases.has(record.id))
      store.finish(record.task.queue, copyRecord(finished), Date.now());
    return copyRecord(finished);
  }
}

import { TaskWaitTimeoutError } from './errors/task-wait-timeout.error';
import type { FeedUnsubscribe, FinishedTasksListener } from './finished-task-feed';
import type { TaskRecord } from './task-record.interface';
import { FINISHED_STATUSES } from './task-result-status.enum';
import { taskWaitTimedOut } from './threadmill.messages';
import type { FeedStore } from './ports/feed-store.port';
import type { TaskStore } from './ports/task-store.port';

/**
 * How long `waitForResult` and `TaskResult.wait` wait.
 *
 * @publicApi
 */
export interface WaitForResultOptions {
  /**
   * Give up after this many milliseconds with TaskWaitTimeoutError (the
   * task goes on). Absent: wait until the task is final.
   */
  timeoutMs?: number;
}

/** What waiting reads from: one backend alias's results and its feed of finished tasks. */
export interface FinishedRecordSource {
  readonly alias: string;
  getResult(id: string): Promise<TaskRecord>;
  subscribeFinished(listener: FinishedTasksListener): Promise<FeedUnsubscribe>;
}

/**
 * A backend as a FinishedRecordSource. Its parts are read at each call, so
 * a backend may hand itself over while it is still being built.
 */
export function finishedRecordSource(
  backend: { readonly alias: string } & {
    readonly tasks: Pick<TaskStore, 'getResult'>;
    readonly feeds: Pick<FeedStore, 'subscribeFinished'>;
  },
): FinishedRecordSource {
  return {
    alias: backend.alias,
    getResult: (id) => backend.tasks.getResult(id),
    subscribeFinished: (listener) => backend.feeds.subscribeFinished(listener),
  };
}

/**
 * The task once it is final. Subscribes first and reads the stored task
 * second, so a task that finishes between the two is seen either by the
 * read or by the feed: never missed, and never polled for.
 *
 * @throws TaskResultDoesNotExist for an unknown or expired id.
 * @throws TaskWaitTimeoutError when `timeoutMs` passes first.
 */
export async function waitForFinished(
  source: FinishedRecordSource,
  id: string,
  options: WaitForResultOptions = {},
): Promise<TaskRecord> {
  const startedAt = Date.now();
  let seen!: () => void;
  const finished = new Promise<void>((resolve) => (seen = resolve));
  const unsubscribe = await source.subscribeFinished((tasks) => {
    if (tasks.some((task) => task.id === id)) seen();
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    const current = await source.getResult(id);
    if (FINISHED_STATUSES.has(current.status)) return current;
    if (options.timeoutMs === undefined) {
      await finished;
      return await source.getResult(id);
    }
    const timeoutMs = options.timeoutMs;
    const left = Math.max(0, timeoutMs - (Date.now() - startedAt));
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), left);
    });
    if (await Promise.race([finished.then(() => true), timedOut])) {
      return await source.getResult(id);
    }
    // The task may have finished as the time ran out: the last read decides.
    const last = await source.getResult(id);
    if (FINISHED_STATUSES.has(last.status)) return last;
    throw new TaskWaitTimeoutError(taskWaitTimedOut(last, source.alias, timeoutMs), last);
  } finally {
    clearTimeout(timer);
    await unsubscribe();
  }
}

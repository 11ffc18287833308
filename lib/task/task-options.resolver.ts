import { isValidTimeoutMs } from '../core/timeout-ms';
import { invalidHardStopAfterMs, invalidTimeoutMs } from '../core/control.messages';
import { InvalidTaskError } from '../core/errors/invalid-task.error';
import { retryPolicyProblem } from '../core/retry-policy';
import type { TaskSchedule } from '../core/schedule-options.interface';
import type { TaskOptions } from '../core/task-options.interface';
import { DEFAULT_QUEUE, PRIORITY_MAX, PRIORITY_MIN } from '../core/threadmill.constants';
import {
  invalidBlockingMs,
  invalidName,
  invalidPriority,
  invalidRetryPolicy,
} from '../core/threadmill.messages';
import { isValidName } from '../core/validate-name.util';
import type { ResolvedTaskOptions } from './task-definition';
import { checkTaskUnique } from './task-uniqueness';
import { aliasOption } from '../utils/alias-option.util';

/**
 * A task's options with their defaults, each checked, whether `@Task` or
 * `defineTask` declared them: a bad option fails at bootstrap (or where the
 * contract is defined), not at the first enqueue.
 *
 * @param defaultName the name when `options.name` is absent (`Class.method`).
 * @param takesContext decided by the caller, which knows the method (a contract has none).
 * @throws InvalidTaskError naming the task and the option.
 */
export function resolveTaskOptions(
  defaultName: string,
  options: TaskOptions,
  takesContext: boolean,
): ResolvedTaskOptions {
  const name = options.name ?? defaultName;
  if (!isValidName(name)) throw new InvalidTaskError(invalidName('task', name));
  const queue = options.queue ?? DEFAULT_QUEUE;
  if (!isValidName(queue)) throw new InvalidTaskError(invalidName('queue', queue));
  const alias = aliasOption(options, `Task ${name}`);
  if (alias !== undefined && !isValidName(alias)) {
    throw new InvalidTaskError(invalidName('backend alias', alias));
  }
  const priority = options.priority ?? 0;
  if (!Number.isInteger(priority) || priority < PRIORITY_MIN || priority > PRIORITY_MAX) {
    throw new InvalidTaskError(invalidPriority(name, priority, PRIORITY_MIN, PRIORITY_MAX));
  }
  const retryProblem = retryPolicyProblem(options.retries, options.backoff);
  if (retryProblem !== null) throw new InvalidTaskError(invalidRetryPolicy(name, retryProblem));
  const { blockingMs } = options;
  if (blockingMs !== undefined && !(Number.isSafeInteger(blockingMs) && blockingMs > 0)) {
    throw new InvalidTaskError(invalidBlockingMs(name, blockingMs));
  }
  const { timeoutMs } = options;
  if (timeoutMs !== undefined && !isValidTimeoutMs(timeoutMs)) {
    throw new InvalidTaskError(invalidTimeoutMs(name, timeoutMs));
  }
  const hardStopAfterMs = options.cancel?.hardStopAfterMs;
  if (options.cancel !== undefined && !isValidTimeoutMs(hardStopAfterMs)) {
    throw new InvalidTaskError(invalidHardStopAfterMs(name, hardStopAfterMs));
  }
  if (options.unique !== undefined) checkTaskUnique(name, options.unique);
  return {
    name,
    queue,
    priority,
    ...(alias === undefined ? {} : { alias }),
    takesContext,
    ...(options.retries === undefined ? {} : { retries: options.retries }),
    ...(options.backoff === undefined ? {} : { backoff: { ...options.backoff } }),
    ...(blockingMs === undefined ? {} : { blockingMs }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(hardStopAfterMs === undefined ? {} : { cancel: { hardStopAfterMs } }),
    ...(options.schedule === undefined ? {} : { schedules: scheduleList(options.schedule) }),
    ...(options.unique === undefined ? {} : { unique: { ...options.unique } }),
  };
}

/** `schedule: {...}` or `schedule: [{...}, ...]` as a list, each entry copied. */
function scheduleList(schedule: TaskSchedule | readonly TaskSchedule[]): TaskSchedule[] {
  const list: readonly TaskSchedule[] = Array.isArray(schedule)
    ? (schedule as readonly TaskSchedule[])
    : [schedule as TaskSchedule];
  return list.map((entry) => ({ ...entry }));
}

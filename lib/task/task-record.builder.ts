// From each module, not the '../core' barrel: a name read through the
// barrel is a getter call, and this runs once per task enqueued.
import { isValidTimeoutMs } from '../core/timeout-ms';
import { invalidTimeoutMs, timeoutNotBelowLease } from '../core/control.messages';
import { InvalidTaskError } from '../core/errors/invalid-task.error';
import { retryPolicyProblem } from '../core/retry-policy';
import type { TaskBackend } from '../core/task-backend.interface';
import { newTaskId } from '../core/task-id';
import type { TaskOverrides } from '../core/task-options.interface';
import type {
  ScheduledTick,
  TaskDescriptor,
  TaskRecord,
  TaskTraceContext,
} from '../core/task-record.interface';
import { TaskResultStatus } from '../core/task-result-status.enum';
import { assertJsonSafe } from '../core/task-serializer';
import {
  DEFAULT_MAX_PAYLOAD_BYTES,
  MAX_DELAY_MS,
  PRIORITY_MAX,
  PRIORITY_MIN,
} from '../core/threadmill.constants';
import {
  deferNotSupported,
  delayWithRunAfter,
  invalidDelay,
  invalidPriority,
  invalidRetryPolicy,
  invalidRunAfter,
  invalidTaskId,
  payloadTooLarge,
  queueNotConfigured,
} from '../core/threadmill.messages';
import { isValidTaskId } from '../core/validate-name.util';
import type { TaskTarget } from './task-definition';
import { debounceStart, uniquenessOf } from './task-uniqueness';

/** A descriptor being built: its optional fields are set one by one. */
type DescriptorDraft = { -readonly [K in keyof TaskDescriptor]: TaskDescriptor[K] };

/** The runAfter `overrides` ask for (runAfter itself, or now + delayMs), checked; null for none. */
function runAfterOf(
  name: string,
  backend: TaskBackend,
  overrides: TaskOverrides,
  now: Date,
): Date | null {
  // null reads as not set.
  const runAfter = overrides.runAfter ?? undefined;
  const delayMs = overrides.delayMs ?? undefined;
  if (runAfter === undefined && delayMs === undefined) return null;
  if (runAfter !== undefined && delayMs !== undefined) {
    throw new InvalidTaskError(delayWithRunAfter(name));
  }
  const assertDefers = (option: 'runAfter' | 'delayMs'): void => {
    if (!backend.features.defer) {
      throw new InvalidTaskError(deferNotSupported(name, backend.alias, option));
    }
  };
  if (delayMs === undefined) {
    if (!(runAfter instanceof Date) || Number.isNaN(runAfter.getTime())) {
      throw new InvalidTaskError(invalidRunAfter(name, runAfter));
    }
    assertDefers('runAfter');
    return runAfter;
  }
  if (!Number.isInteger(delayMs) || delayMs < 0 || delayMs > MAX_DELAY_MS) {
    throw new InvalidTaskError(invalidDelay(name, delayMs, MAX_DELAY_MS));
  }
  assertDefers('delayMs');
  // The backend sends what is left of it as a wait, which the store adds to its own clock.
  return new Date(now.getTime() + delayMs);
}

/** A time limit the backend's lease would not cut short. */
function assertTimeout(name: string, backend: TaskBackend, timeoutMs: unknown): void {
  if (!isValidTimeoutMs(timeoutMs)) throw new InvalidTaskError(invalidTimeoutMs(name, timeoutMs));
  if (timeoutMs >= backend.leaseTtlMs) {
    throw new InvalidTaskError(
      timeoutNotBelowLease(name, timeoutMs, backend.alias, backend.leaseTtlMs),
    );
  }
}

/**
 * The READY record one enqueue of `target` stores on `backend`: its
 * options resolved over the per-call overrides and checked, the arguments
 * checked JSON-safe and within the backend's payload limit, and the trace
 * context of the enqueue's span when it has one. Throws
 * InvalidTaskError, naming the task, before anything is stored.
 */
export function buildTaskRecord(
  target: TaskTarget,
  backend: TaskBackend,
  args: readonly unknown[],
  overrides: TaskOverrides,
  now: Date,
  tick?: ScheduledTick,
  traceContext?: TaskTraceContext,
): TaskRecord {
  const name = target.name;
  // Only a caller's id needs checking: a new one is a UUID.
  const id = overrides.id ?? newTaskId(now.getTime());
  if (overrides.id !== undefined && !isValidTaskId(id)) {
    throw new InvalidTaskError(invalidTaskId(name, id));
  }
  const priority = overrides.priority ?? target.options.priority;
  if (!Number.isInteger(priority) || priority < PRIORITY_MIN || priority > PRIORITY_MAX) {
    throw new InvalidTaskError(invalidPriority(name, priority, PRIORITY_MIN, PRIORITY_MAX));
  }
  const queue = overrides.queue ?? target.options.queue;
  if (!backend.queues.includes(queue)) {
    throw new InvalidTaskError(queueNotConfigured(name, queue, backend.alias, backend.queues));
  }
  const unique = uniquenessOf(name, target.options.unique, backend, args, overrides);
  const runAfter = debounceStart(unique, now) ?? runAfterOf(name, backend, overrides, now);
  const retries = overrides.retries ?? target.options.retries;
  const backoff = overrides.backoff ?? target.options.backoff;
  const retryProblem = retryPolicyProblem(retries, backoff);
  if (retryProblem !== null) throw new InvalidTaskError(invalidRetryPolicy(name, retryProblem));
  const timeoutMs = overrides.timeoutMs ?? target.options.timeoutMs;
  if (timeoutMs !== undefined) assertTimeout(name, backend, timeoutMs);
  assertJsonSafe(args, name, 'args');
  // Measured as stored: a huge payload would slow every hop (Redis, network, the worker's parse).
  const limit = backend.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES;
  const bytes = Buffer.byteLength(JSON.stringify(args));
  if (bytes > limit) {
    throw new InvalidTaskError(payloadTooLarge(name, bytes, limit, backend.alias));
  }
  const task: DescriptorDraft = {
    name,
    queue,
    priority,
    runAfter,
    backend: backend.alias,
  };
  // Only when set, so a task without a retry policy stores nothing extra;
  // assigned, not spread, since this runs once per task enqueued.
  if (retries !== undefined) task.retries = retries;
  if (backoff !== undefined) task.backoff = { ...backoff };
  if (timeoutMs !== undefined) task.timeoutMs = timeoutMs;
  if (tick !== undefined) task.schedule = tick;
  if (unique !== undefined) task.unique = unique;
  if (traceContext !== undefined) task.traceContext = traceContext;
  return {
    id,
    task,
    status: TaskResultStatus.READY,
    enqueuedAt: now,
    startedAt: null,
    finishedAt: null,
    lastAttemptedAt: null,
    args: [...args],
    errors: [],
    workerIds: [],
  };
}

import {
  DEFAULT_MAX_PAYLOAD_BYTES,
  InvalidTaskError,
  MAX_DELAY_MS,
  PRIORITY_MAX,
  PRIORITY_MIN,
  TaskResultStatus,
  assertJsonSafe,
  deferNotSupported,
  delayWithRunAfter,
  invalidDelay,
  invalidPriority,
  invalidRetryPolicy,
  invalidRunAfter,
  invalidTaskId,
  invalidTimeoutMs,
  isValidTaskId,
  isValidTimeoutMs,
  newTaskId,
  payloadTooLarge,
  queueNotConfigured,
  retryPolicyProblem,
  timeoutNotBelowLease,
  type ScheduledTick,
  type TaskBackend,
  type TaskOverrides,
  type TaskRecord,
  type TaskTraceContext,
} from '../core';
import type { TaskDefinition } from './task-definition';
import { debounceStart, uniquenessOf } from './task-uniqueness';

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
 * The READY record one enqueue of `definition` stores on `backend`: its
 * options resolved over the per-call overrides and checked, the arguments
 * checked JSON-safe and within the backend's payload limit, and the trace
 * context of the enqueue's span when it has one. Throws
 * InvalidTaskError, naming the task, before anything is stored.
 */
export function buildTaskRecord(
  definition: TaskDefinition,
  backend: TaskBackend,
  args: readonly unknown[],
  overrides: TaskOverrides,
  now: Date,
  tick?: ScheduledTick,
  traceContext?: TaskTraceContext,
): TaskRecord {
  const name = definition.name;
  const id = overrides.id ?? newTaskId(now.getTime());
  if (!isValidTaskId(id)) throw new InvalidTaskError(invalidTaskId(name, id));
  const priority = overrides.priority ?? definition.options.priority;
  if (!Number.isInteger(priority) || priority < PRIORITY_MIN || priority > PRIORITY_MAX) {
    throw new InvalidTaskError(invalidPriority(name, priority, PRIORITY_MIN, PRIORITY_MAX));
  }
  const queue = overrides.queue ?? definition.options.queue;
  if (!backend.queues.includes(queue)) {
    throw new InvalidTaskError(queueNotConfigured(name, queue, backend.alias, backend.queues));
  }
  const unique = uniquenessOf(name, definition.options.unique, backend, args, overrides);
  const runAfter = debounceStart(unique, now) ?? runAfterOf(name, backend, overrides, now);
  const retries = overrides.retries ?? definition.options.retries;
  const backoff = overrides.backoff ?? definition.options.backoff;
  const retryProblem = retryPolicyProblem(retries, backoff);
  if (retryProblem !== null) throw new InvalidTaskError(invalidRetryPolicy(name, retryProblem));
  const timeoutMs = overrides.timeoutMs ?? definition.options.timeoutMs;
  if (timeoutMs !== undefined) assertTimeout(name, backend, timeoutMs);
  assertJsonSafe(args, name, 'args');
  // Measured as stored: a huge payload would slow every hop (Redis, network, the worker's parse).
  const limit = backend.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES;
  const bytes = Buffer.byteLength(JSON.stringify(args));
  if (bytes > limit) {
    throw new InvalidTaskError(payloadTooLarge(name, bytes, limit, backend.alias));
  }
  return {
    id,
    task: {
      name,
      queue,
      priority,
      runAfter,
      backend: backend.alias,
      // Only when set, so a task without a retry policy stores nothing extra.
      ...(retries === undefined ? {} : { retries }),
      ...(backoff === undefined ? {} : { backoff: { ...backoff } }),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(tick === undefined ? {} : { schedule: tick }),
      ...(unique === undefined ? {} : { unique }),
      ...(traceContext === undefined ? {} : { traceContext }),
    },
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

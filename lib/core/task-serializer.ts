import { CorruptTaskDataError } from './errors/corrupt-task-data.error';
import { InvalidTaskError } from './errors/invalid-task.error';
import { recordWith } from './record-with';
import type { TaskBackoff } from './task-options.interface';
import type {
  ScheduledTick,
  TaskDescriptor,
  TaskErrorRecord,
  TaskRecord,
  TaskTraceContext,
} from './task-record.interface';
import { TaskResultStatus } from './task-result-status.enum';
import { MAX_JSON_DEPTH } from './threadmill.constants';
import { corruptTaskData, nestedTooDeep, notJsonSafe } from './threadmill.messages';
import type { TaskUniqueness } from './unique-key';

/** The stored JSON shape of a TaskRecord: times as epoch milliseconds. */
export interface TaskRecordJson {
  id: string;
  task: {
    name: string;
    queue: string;
    priority: number;
    runAfter: number | null;
    backend: string;
    /** Only when set: records from before retries existed have neither, and read as no retries. */
    retries?: number;
    backoff?: TaskBackoff;
    timeoutMs?: number;
    /** Only for a task a schedule enqueued; `tickAt` in epoch ms. */
    schedule?: { id: string; tickAt: number };
    unique?: TaskUniqueness;
    /** Only for a task enqueued inside a trace. */
    traceContext?: TaskTraceContext;
    /** Only for a task put back by a worker that did not register its name. */
    unknownSince?: number;
  };
  status: TaskResultStatus;
  enqueuedAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  lastAttemptedAt: number | null;
  args: unknown[];
  errors: TaskErrorRecord[];
  workerIds: string[];
  returnValue?: unknown;
  /** Only while a cancel is pending (see TaskRecord.cancelRequestedAt). */
  cancelRequestedAt?: number;
}

const STATUSES = new Set<string>(Object.values(TaskResultStatus));

/** A string, boolean or null: JSON-safe as it is, and read back unchanged. */
function isPlainScalar(value: unknown): value is string | boolean | null {
  return typeof value === 'string' || typeof value === 'boolean' || value === null;
}

/**
 * Throws `InvalidTaskError` unless `value` survives `JSON.parse(JSON.stringify(value))`
 * unchanged, nested at most MAX_JSON_DEPTH levels. Dates are refused rather
 * than silently turned into strings. `what` names the root in the message
 * (`args`, `return value`).
 */
export function assertJsonSafe(value: unknown, taskName: string, what: string): void {
  // Scalars need no walk (most return values, and every argument list is an array).
  if (isPlainScalar(value)) return;
  const ancestors = new Set<object>();
  // The keys from the root to the node being visited; the path text is built only to fail.
  const keys: (string | number)[] = [];
  const fail = (reason: string): never => {
    const path = keys.map((key) => (typeof key === 'number' ? `[${key}]` : `.${key}`)).join('');
    throw new InvalidTaskError(notJsonSafe(taskName, `${what}${path}`, reason));
  };
  const visit = (node: unknown): void => {
    switch (typeof node) {
      case 'string':
      case 'boolean':
        return;
      case 'number':
        if (!Number.isFinite(node)) fail(`is ${String(node)}`);
        return;
      case 'undefined':
        return fail('is undefined');
      case 'bigint':
        return fail('is a BigInt');
      case 'symbol':
        return fail('is a symbol');
      case 'function':
        return fail('is a function');
    }
    if (node === null) return;
    // The path is the depth: one comparison per array or object, none per scalar.
    if (keys.length >= MAX_JSON_DEPTH) {
      throw new InvalidTaskError(nestedTooDeep(taskName, what, MAX_JSON_DEPTH));
    }
    const obj = node as object;
    if (ancestors.has(obj)) fail('is a cycle back to an enclosing value');
    if (Array.isArray(obj)) {
      ancestors.add(obj);
      for (let i = 0; i < obj.length; i++) {
        keys.push(i);
        if (!(i in obj)) fail('is a hole in a sparse array');
        visit(obj[i]);
        keys.pop();
      }
      ancestors.delete(obj);
      return;
    }
    if (obj instanceof Date) {
      fail('is a Date (convert it explicitly, e.g. with toISOString())');
    }
    const proto = Object.getPrototypeOf(obj) as unknown;
    if (proto !== Object.prototype && proto !== null) {
      fail(`is an instance of ${obj.constructor?.name ?? 'a class'}, not a plain object`);
    }
    if (Object.getOwnPropertySymbols(obj).length > 0) fail('has symbol keys');
    ancestors.add(obj);
    for (const key of Object.keys(obj)) {
      keys.push(key);
      visit((obj as Record<string, unknown>)[key]);
      keys.pop();
    }
    ancestors.delete(obj);
  };
  visit(value);
}

/** The value as JSON stores it (`undefined` becomes `null`): what a task's caller will read back. */
export function normalizeJson(value: unknown): unknown {
  if (value === undefined) return null;
  // A string, boolean or null reads back as it is: no round trip for the common scalar results.
  if (isPlainScalar(value)) return value;
  return JSON.parse(JSON.stringify(value)) as unknown;
}

const ms = (date: Date | null): number | null => (date === null ? null : date.getTime());
const date = (value: number | null | undefined): Date | null =>
  value === null || value === undefined ? null : new Date(value);

/** A scheduled task's tick as stored: the time as epoch ms. */
export function scheduleToJson(tick: ScheduledTick): { id: string; tickAt: number } {
  return { id: tick.id, tickAt: tick.tickAt.getTime() };
}

export function scheduleFromJson(json: { id: string; tickAt: number }): ScheduledTick {
  return { id: json.id, tickAt: new Date(json.tickAt) };
}

export function recordToJson(record: TaskRecord): TaskRecordJson {
  const { schedule, unknownSince, ...task } = record.task;
  const json: TaskRecordJson = {
    id: record.id,
    task: {
      ...task,
      runAfter: ms(task.runAfter),
      ...(schedule && { schedule: scheduleToJson(schedule) }),
      ...(unknownSince && { unknownSince: unknownSince.getTime() }),
    },
    status: record.status,
    enqueuedAt: record.enqueuedAt.getTime(),
    startedAt: ms(record.startedAt),
    finishedAt: ms(record.finishedAt),
    lastAttemptedAt: ms(record.lastAttemptedAt),
    args: record.args as unknown[],
    errors: record.errors as TaskErrorRecord[],
    workerIds: record.workerIds as string[],
  };
  if (record.status === TaskResultStatus.SUCCESSFUL) json.returnValue = record.returnValue ?? null;
  if (record.cancelRequestedAt) json.cancelRequestedAt = record.cancelRequestedAt.getTime();
  return json;
}

export function recordFromJson(json: TaskRecordJson): TaskRecord {
  // One copy of the task (every leased task is read here): its stored times made Dates.
  const task: { -readonly [K in keyof TaskDescriptor]: TaskDescriptor[K] } = {
    ...(json.task as Omit<TaskRecordJson['task'], 'runAfter' | 'schedule' | 'unknownSince'>),
    runAfter: date(json.task.runAfter),
  };
  if (typeof json.task.unknownSince === 'number') {
    task.unknownSince = new Date(json.task.unknownSince);
  }
  const { schedule } = json.task;
  if (schedule) task.schedule = scheduleFromJson(schedule);
  // Only a foreign record stores a null schedule; ours never write the key without one.
  else if ('schedule' in task) delete task.schedule;
  const record: TaskRecord = {
    id: json.id,
    task,
    status: json.status,
    enqueuedAt: new Date(json.enqueuedAt),
    startedAt: date(json.startedAt),
    finishedAt: date(json.finishedAt),
    lastAttemptedAt: date(json.lastAttemptedAt),
    args: json.args,
    errors: json.errors ?? [],
    workerIds: json.workerIds ?? [],
  };
  const read =
    json.status === TaskResultStatus.SUCCESSFUL
      ? recordWith(record, { returnValue: json.returnValue ?? null })
      : record;
  return typeof json.cancelRequestedAt === 'number'
    ? recordWith(read, { cancelRequestedAt: new Date(json.cancelRequestedAt) })
    : read;
}

export function serializeRecord(record: TaskRecord): string {
  return JSON.stringify(recordToJson(record));
}

/**
 * Parses stored task data. Anything that is not our shape throws
 * `CorruptTaskDataError`, so a consumer can fail that one task and go on.
 */
export function deserializeRecord(id: string, text: string): TaskRecord {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CorruptTaskDataError(corruptTaskData(id, 'not JSON'));
  }
  return recordFromParsedJson(id, parsed);
}

/** A record from parsed JSON that should have our shape; throws `CorruptTaskDataError` when it has not. */
export function recordFromParsedJson(id: string, parsed: unknown): TaskRecord {
  const json = parsed as Partial<TaskRecordJson> | null;
  if (
    typeof json !== 'object' ||
    json === null ||
    typeof json.id !== 'string' ||
    typeof json.task?.name !== 'string' ||
    typeof json.task.queue !== 'string' ||
    !STATUSES.has(json.status as string) ||
    typeof json.enqueuedAt !== 'number' ||
    !Array.isArray(json.args)
  ) {
    throw new CorruptTaskDataError(corruptTaskData(id, 'missing or malformed fields'));
  }
  return recordFromJson(json as TaskRecordJson);
}

/** The error record stored for a thrown value, whatever was thrown. */
export function errorToRecord(thrown: unknown): TaskErrorRecord {
  if (thrown instanceof Error) {
    return {
      className: thrown.name || thrown.constructor.name || 'Error',
      traceback: thrown.stack ?? `${thrown.name}: ${thrown.message}`,
    };
  }
  let text: string;
  try {
    text = typeof thrown === 'string' ? thrown : (JSON.stringify(thrown) ?? String(thrown));
  } catch {
    text = String(thrown);
  }
  return {
    className: typeof thrown === 'object' && thrown !== null ? 'Object' : typeof thrown,
    traceback: `Non-Error thrown: ${text}`,
  };
}

import { CorruptTaskDataError } from './errors/corrupt-task-data.error';
import { InvalidTaskError } from './errors/invalid-task.error';
import type { TaskBackoff } from './task-options.interface';
import type { TaskErrorRecord, TaskRecord } from './task-record.interface';
import { TaskResultStatus } from './task-result-status.enum';
import { corruptTaskData, notJsonSafe } from './threadmill.messages';

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
}

const STATUSES = new Set<string>(Object.values(TaskResultStatus));

/**
 * Throws `InvalidTaskError` unless `value` survives `JSON.parse(JSON.stringify(value))`
 * unchanged. Dates are refused rather than silently turned into strings.
 * `what` names the root in the message (`args`, `return value`).
 */
export function assertJsonSafe(value: unknown, taskName: string, what: string): void {
  const ancestors = new Set<object>();
  const fail = (path: string, reason: string): never => {
    throw new InvalidTaskError(notJsonSafe(taskName, path, reason));
  };
  const visit = (node: unknown, path: string): void => {
    switch (typeof node) {
      case 'string':
      case 'boolean':
        return;
      case 'number':
        if (!Number.isFinite(node)) fail(path, `is ${String(node)}`);
        return;
      case 'undefined':
        return fail(path, 'is undefined');
      case 'bigint':
        return fail(path, 'is a BigInt');
      case 'symbol':
        return fail(path, 'is a symbol');
      case 'function':
        return fail(path, 'is a function');
    }
    if (node === null) return;
    const obj = node as object;
    if (ancestors.has(obj)) fail(path, 'is a cycle back to an enclosing value');
    if (Array.isArray(obj)) {
      ancestors.add(obj);
      for (let i = 0; i < obj.length; i++) {
        if (!(i in obj)) fail(`${path}[${i}]`, 'is a hole in a sparse array');
        visit(obj[i], `${path}[${i}]`);
      }
      ancestors.delete(obj);
      return;
    }
    if (obj instanceof Date) {
      fail(path, 'is a Date (convert it explicitly, e.g. with toISOString())');
    }
    const proto = Object.getPrototypeOf(obj) as unknown;
    if (proto !== Object.prototype && proto !== null) {
      fail(path, `is an instance of ${obj.constructor?.name ?? 'a class'}, not a plain object`);
    }
    if (Object.getOwnPropertySymbols(obj).length > 0) fail(path, 'has symbol keys');
    ancestors.add(obj);
    for (const [key, child] of Object.entries(obj)) visit(child, `${path}.${key}`);
    ancestors.delete(obj);
  };
  visit(value, what);
}

/** The value as JSON stores it (`undefined` becomes `null`): what a task's caller will read back. */
export function normalizeJson(value: unknown): unknown {
  if (value === undefined) return null;
  return JSON.parse(JSON.stringify(value)) as unknown;
}

const ms = (date: Date | null): number | null => (date === null ? null : date.getTime());
const date = (value: number | null | undefined): Date | null =>
  value === null || value === undefined ? null : new Date(value);

export function recordToJson(record: TaskRecord): TaskRecordJson {
  const json: TaskRecordJson = {
    id: record.id,
    task: { ...record.task, runAfter: ms(record.task.runAfter) },
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
  return json;
}

export function recordFromJson(json: TaskRecordJson): TaskRecord {
  const record: TaskRecord = {
    id: json.id,
    task: { ...json.task, runAfter: date(json.task.runAfter) },
    status: json.status,
    enqueuedAt: new Date(json.enqueuedAt),
    startedAt: date(json.startedAt),
    finishedAt: date(json.finishedAt),
    lastAttemptedAt: date(json.lastAttemptedAt),
    args: json.args,
    errors: json.errors ?? [],
    workerIds: json.workerIds ?? [],
  };
  return json.status === TaskResultStatus.SUCCESSFUL
    ? { ...record, returnValue: json.returnValue ?? null }
    : record;
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

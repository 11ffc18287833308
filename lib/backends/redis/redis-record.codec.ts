import { CorruptTaskDataError } from '../../core/errors/corrupt-task-data.error';
import type { TaskErrorRecord, TaskRecord } from '../../core/task-record.interface';
import { FINISHED_STATUSES, TaskResultStatus } from '../../core/task-result-status.enum';
import { DEFAULT_MAX_PAYLOAD_BYTES } from '../../core/threadmill.constants';
import {
  recordFromJson,
  recordFromParsedJson,
  scheduleToJson,
  type TaskRecordJson,
} from '../../core/task-serializer';
import { recordWithProgress } from '../../core/task-progress';
import { corruptTaskData, storedDataTooLarge } from '../../core/threadmill.messages';
import { unreadableRecord } from '../../core/unreadable-record';
import { encodeOutcome } from './redis-outcome';
import {
  PRIORITY_WEIGHT,
  type CompactJson,
  type MutableTaskFields,
  type OutcomeJson,
  type WholeOutcomeJson,
} from './redis-task-hash';

/**
 * Room for the rest of a live record beside its arguments (name, times, and the
 * errors of earlier attempts, each with a stack), when bounding what is read back.
 */
const RECORD_OVERHEAD_BYTES = 1024 * 1024;

/**
 * How the hash says READY: an enqueue writes no status of its own, so a
 * task never leased holds none (a format, not a decision).
 */
const STATUS_NOT_WRITTEN = TaskResultStatus.READY;

/**
 * How a TaskRecord lives in Redis. A live task's hash holds `data`: the
 * enqueued record without its id (the key has it), its backend (the alias has
 * it) and every field still at its default. Acquire writes the few fields
 * that change (status, startedAt, lastAttemptedAt, workers) and the ready
 * score (for release) beside it, so no JSON is decoded or encoded in Lua. A
 * finished task keeps its hash and gains an `outcome` field (OutcomeJson):
 * the record is sent and stored once, not again whole when it finishes.
 *
 * @internal
 */
export class RedisRecordCodec {
  /** Longest `data` decoded; anything longer was not written by enqueue and is failed unread. */
  private readonly maxDataLength: number;

  /**
   * @param maxPayloadBytes the alias's enqueue limit on arguments; stored data
   *   longer than twice that plus room for the record is not parsed.
   */
  constructor(
    private readonly alias: string,
    maxPayloadBytes: number = DEFAULT_MAX_PAYLOAD_BYTES,
  ) {
    this.maxDataLength = 2 * maxPayloadBytes + RECORD_OVERHEAD_BYTES;
  }

  /** Ready score for a task whose hash (with its real score) is gone: first of its priority. */
  static fallbackScore(record: Pick<TaskRecord, 'task'>): number {
    return -record.task.priority * PRIORITY_WEIGHT;
  }

  /** The `data` field of a new task's hash. */
  encodeLive(record: TaskRecord): string {
    // Built field by field (no full record to strip): enqueue encodes every task, so this is hot.
    const { task } = record;
    const compactTask: Partial<TaskRecordJson['task']> = { name: task.name, queue: task.queue };
    if (task.priority !== 0) compactTask.priority = task.priority;
    if (task.runAfter !== null) compactTask.runAfter = task.runAfter.getTime();
    if (task.backend !== this.alias) compactTask.backend = task.backend;
    if (task.retries !== undefined) compactTask.retries = task.retries;
    if (task.backoff !== undefined) compactTask.backoff = task.backoff;
    if (task.timeoutMs !== undefined) compactTask.timeoutMs = task.timeoutMs;
    if (task.schedule !== undefined) compactTask.schedule = scheduleToJson(task.schedule);
    if (task.unique !== undefined) compactTask.unique = task.unique;
    if (task.traceContext !== undefined) compactTask.traceContext = task.traceContext;
    if (task.unknownSince !== undefined) compactTask.unknownSince = task.unknownSince.getTime();
    const json: CompactJson = { task: compactTask };
    if (record.status !== TaskResultStatus.READY) json.status = record.status;
    json.enqueuedAt = record.enqueuedAt.getTime();
    if (record.startedAt !== null) json.startedAt = record.startedAt.getTime();
    if (record.finishedAt !== null) json.finishedAt = record.finishedAt.getTime();
    if (record.lastAttemptedAt !== null) json.lastAttemptedAt = record.lastAttemptedAt.getTime();
    json.args = record.args as unknown[];
    if (record.errors.length > 0) json.errors = record.errors as TaskErrorRecord[];
    if (record.workerIds.length > 0) json.workerIds = record.workerIds as string[];
    if (record.status === TaskResultStatus.SUCCESSFUL)
      json.returnValue = record.returnValue ?? null;
    return JSON.stringify(json);
  }

  /**
   * What the `data` of every task named `name` starts with (encodeLive
   * writes the name first), so a listing filtered by name compares a prefix
   * in Lua instead of decoding JSON there.
   */
  static dataPrefixOfName(name: string): string {
    return `{"task":{"name":${JSON.stringify(name)},`;
  }

  /**
   * A live task from its hash fields. Throws CorruptTaskDataError when `data`
   * is missing or not ours, so the caller can fail that task and go on.
   */
  decodeLive(id: string, data: string | null, fields: MutableTaskFields): TaskRecord {
    return recordFromJson(this.liveJson(id, data, fields));
  }

  /**
   * The task a hash holds, live or finished, from an HMGET of
   * TASK_HASH_FIELDS; null when nothing is stored under the id. Throws
   * CorruptTaskDataError when what is stored is not ours.
   */
  decodeStored(id: string, values: readonly (string | null)[] | null): TaskRecord | null {
    const data = values?.[0] ?? null;
    const outcome = values?.[5] ?? null;
    const fields = RedisRecordCodec.mutableFields(values);
    const progress = values?.[6];
    if (outcome !== null) {
      const finished = this.decodeFinished(id, data, fields, outcome);
      // Progress stored with the outcome is the attempt's last; the field holds an earlier write.
      return finished.progress !== undefined ? finished : recordWithProgress(finished, progress);
    }
    return data === null ? null : recordWithProgress(this.decodeLive(id, data, fields), progress);
  }

  private liveJson(id: string, data: string | null, fields: MutableTaskFields): TaskRecordJson {
    if (data === null) {
      throw new CorruptTaskDataError(corruptTaskData(id, 'its task data is missing'));
    }
    const json = this.parseStored(id, data, 'not JSON', true) as CompactJson | null;
    const task = json?.task;
    if (
      typeof json !== 'object' ||
      json === null ||
      typeof task !== 'object' ||
      task === null ||
      typeof task.name !== 'string' ||
      typeof task.queue !== 'string' ||
      typeof json.enqueuedAt !== 'number' ||
      !Array.isArray(json.args)
    ) {
      throw new CorruptTaskDataError(corruptTaskData(id, 'missing or malformed fields'));
    }
    let workerIds = json.workerIds ?? [];
    if (fields.workers !== null) {
      try {
        workerIds = JSON.parse(fields.workers) as string[];
      } catch {
        throw new CorruptTaskDataError(corruptTaskData(id, 'its worker ids are not JSON'));
      }
    }
    const taskJson: TaskRecordJson['task'] = {
      name: task.name,
      queue: task.queue,
      priority: task.priority ?? 0,
      runAfter: task.runAfter ?? null,
      backend: task.backend ?? this.alias,
    };
    // Set only when stored, so a task without a retry policy reads back without the keys.
    if (task.retries !== undefined) taskJson.retries = task.retries;
    if (task.backoff !== undefined) taskJson.backoff = task.backoff;
    if (task.timeoutMs !== undefined) taskJson.timeoutMs = task.timeoutMs;
    if (task.schedule !== undefined) taskJson.schedule = task.schedule;
    if (task.unique !== undefined) taskJson.unique = task.unique;
    if (task.traceContext !== undefined) taskJson.traceContext = task.traceContext;
    if (task.unknownSince !== undefined) taskJson.unknownSince = task.unknownSince;
    const live: TaskRecordJson = {
      id,
      task: taskJson,
      status: (fields.status as TaskResultStatus | null) ?? json.status ?? STATUS_NOT_WRITTEN,
      enqueuedAt: json.enqueuedAt,
      startedAt: numberOr(fields.startedAt, json.startedAt),
      finishedAt: json.finishedAt ?? null,
      lastAttemptedAt: numberOr(fields.lastAttemptedAt, json.lastAttemptedAt),
      args: json.args,
      errors: json.errors ?? [],
      workerIds,
      returnValue: json.returnValue,
    };
    if (fields.cancel) live.cancelRequestedAt = Number(fields.cancel);
    return live;
  }

  /**
   * Stored JSON, parsed; CorruptTaskDataError (saying `notJson` when it is not
   * JSON) when it cannot be ours. `bounded`: longer than any enqueued data can
   * be is refused unparsed (an outcome is not bounded: a return value has no limit).
   */
  private parseStored(id: string, text: string, notJson: string, bounded: boolean): unknown {
    // A length check before JSON.parse: a huge foreign value costs no parse and no heap.
    // (String length counts UTF-16 units, never more than the UTF-8 bytes enqueue measured.)
    if (bounded && text.length > this.maxDataLength) {
      throw new CorruptTaskDataError(
        corruptTaskData(id, storedDataTooLarge(text.length, this.maxDataLength)),
      );
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new CorruptTaskDataError(corruptTaskData(id, notJson));
    }
  }

  private decodeFinished(
    id: string,
    data: string | null,
    fields: MutableTaskFields,
    outcomeText: string,
  ): TaskRecord {
    const parsed = this.parseStored(id, outcomeText, 'its outcome is not JSON', false);
    if (typeof parsed === 'object' && parsed !== null && 'record' in parsed) {
      return recordFromParsedJson(id, (parsed as WholeOutcomeJson).record);
    }
    const outcome = parsed as Partial<OutcomeJson> | null;
    if (
      typeof outcome !== 'object' ||
      outcome === null ||
      !FINISHED_STATUSES.has(outcome.s as TaskResultStatus) ||
      !Array.isArray(outcome.w)
    ) {
      throw new CorruptTaskDataError(corruptTaskData(id, 'its outcome has malformed fields'));
    }
    const live = this.liveJson(id, data, fields);
    const record = recordFromJson({
      ...live,
      status: outcome.s as TaskResultStatus,
      finishedAt: outcome.f ?? null,
      workerIds: outcome.w,
      errors: outcome.e ?? [],
      returnValue: outcome.r,
    });
    return outcome.p === undefined ? record : { ...record, progress: outcome.p };
  }

  /** The mutable fields from an HMGET of TASK_HASH_FIELDS (null when the hash is gone). */
  static mutableFields(values: readonly (string | null)[] | null): MutableTaskFields {
    return {
      status: values?.[1] ?? null,
      startedAt: values?.[2] ?? null,
      lastAttemptedAt: values?.[3] ?? null,
      workers: values?.[4] ?? null,
      cancel: values?.[7] ?? null,
    };
  }

  /**
   * The FAILED record stored for a task whose data could not be read: all we
   * know is its id and queue. `error` becomes its first error. Its task name
   * is UNREADABLE_TASK_NAME, which is how encodeFinished knows to store it
   * whole (a task that merely shares the name is stored whole too, which is
   * always correct, only larger).
   */
  unreadable(
    id: string,
    queue: string,
    at: Date,
    workerIds: readonly string[],
    error?: TaskErrorRecord,
  ): TaskRecord {
    return unreadableRecord(id, { queue, alias: this.alias }, at, error ? [error] : [], workerIds);
  }

  /** The `outcome` of a finished task: see encodeOutcome. */
  encodeFinished(record: TaskRecord): string {
    return encodeOutcome(record);
  }
}

function numberOr(text: string | null, fallback: number | null | undefined): number | null {
  return text === null ? (fallback ?? null) : Number(text);
}

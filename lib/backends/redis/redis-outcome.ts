import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import { recordToJson } from '../../core/task-serializer';
import { UNREADABLE_TASK_NAME } from '../../core/unreadable-record';
import type { WholeOutcomeJson } from './redis-task-hash';

/**
 * The `outcome` of a finished task (OutcomeJson): what the worker changed,
 * and the last progress its attempt reported when the record carries one.
 * The rest is read back from the hash: the task, enqueuedAt and args from
 * `data`, startedAt and lastAttemptedAt as acquire wrote them (a worker
 * cannot move when its attempt began); a live task's hash never expires,
 * so its data is there. A record that does not come from the data (see
 * RedisRecordCodec.unreadable) is stored whole instead, so its result
 * never depends on data that is missing.
 *
 * @internal
 */
export function encodeOutcome(record: TaskRecord): string {
  if (record.task.name === UNREADABLE_TASK_NAME) return encodeWhole(record);
  // Built as text (every finished task is encoded): each value through JSON.stringify, so it stays valid JSON.
  let text = `{"s":${json(record.status)},"f":${json(ms(record.finishedAt))},"w":${json(record.workerIds)}`;
  if (record.errors.length > 0) text += `,"e":${json(record.errors)}`;
  if (record.status === TaskResultStatus.SUCCESSFUL) text += `,"r":${json(record.returnValue)}`;
  // The attempt's last progress rides with its outcome: nothing when it reported none.
  if (record.progress !== undefined) text += `,"p":${json(record.progress)}`;
  return `${text}}`;
}

/** An `outcome` that carries the whole record, for when `data` cannot be relied on. */
function encodeWhole(record: TaskRecord): string {
  const whole: WholeOutcomeJson = { record: recordToJson(record) };
  return JSON.stringify(whole);
}

function ms(date: Date | null): number | null {
  return date === null ? null : date.getTime();
}

/** JSON text of a value, `null` where JSON has none (undefined, a function). */
function json(value: unknown): string {
  // Typed string, but undefined for undefined, a function or a symbol.
  const text: string | undefined = JSON.stringify(value);
  return text ?? 'null';
}

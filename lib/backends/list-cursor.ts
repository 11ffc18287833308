import { InvalidQueryError } from '../core/errors/invalid-query.error';
import { assertKnownQueue } from '../core/known-queue';
import { invalidListCursor, invalidListLimit, invalidListSegment } from '../core/listing.messages';
import { shown } from '../core/shown';
import {
  QUEUE_SEGMENTS,
  finishedSegment,
  isFinishedSegment,
  type QueueSegment,
} from '../core/queue-segment';
import type { TaskListQuery, TaskPage } from '../core/task-listing';
import type { TaskRecord } from '../core/task-record.interface';
import { FINISHED_STATUSES, TaskResultStatus } from '../core/task-result-status.enum';

/** Most records one page holds. */
export const LIST_LIMIT_MAX = 500;
/** Entries a filtered page may examine per record asked for... */
export const LIST_SCAN_PER_RECORD = 20;
/** ...and at most, whatever the limit: what keeps a rare name over a million tasks fast. */
export const LIST_SCAN_MAX = 5000;

/**
 * Where a listing stands: an entry's sort value in its segment (the score
 * of its Redis ZSET, the ordered column of its SQLite row) and the store's
 * own tie-break among equal values (an id, a row number). Never an offset,
 * so a page is where it was however many tasks came or went before it.
 */
export interface ListPosition {
  readonly score: number;
  readonly tie: string | number;
}

/** A listing checked and decoded, for a store to read one page of. */
export interface ListPlan {
  readonly queue: string;
  readonly segment: QueueSegment;
  readonly limit: number;
  readonly taskName?: string;
  /** Start after this entry (the last one a previous page examined); null from the first. */
  readonly after: ListPosition | null;
  /** Most entries the store examines for this page: `limit`, or more when filtered by name. */
  readonly scan: number;
}

/** One entry a store examined, in listing order; `record` null when expired or unreadable. */
export interface ListedEntry {
  readonly position: ListPosition;
  readonly record: TaskRecord | null;
}

/**
 * What a store read for one page: the entries it examined that may belong
 * on it (a store may leave out entries it knows are of another name), and
 * where it stopped.
 */
export interface ListScan {
  readonly entries: readonly ListedEntry[];
  /** The last entry examined (kept or not), null when none was. */
  readonly last: ListPosition | null;
  /** The segment has no entry after `last`. */
  readonly ended: boolean;
}

/**
 * Checks `query` for a store of `alias`: its queue (UnknownQueueError),
 * segment, limit and cursor (InvalidQueryError, saying what to send).
 */
export function planListing(
  alias: string,
  queues: readonly string[],
  query: TaskListQuery,
): ListPlan {
  const { queue, segment, limit, cursor, taskName } = query;
  assertKnownQueue(alias, queues, queue);
  if (!QUEUE_SEGMENTS.includes(segment)) {
    throw new InvalidQueryError(invalidListSegment(segment, QUEUE_SEGMENTS));
  }
  if (!Number.isInteger(limit) || limit < 1 || limit > LIST_LIMIT_MAX) {
    throw new InvalidQueryError(invalidListLimit(limit, LIST_LIMIT_MAX));
  }
  const after = cursor === undefined ? null : decodeListCursor(cursor, queue, segment);
  const scan =
    taskName === undefined ? limit : Math.min(limit * LIST_SCAN_PER_RECORD, LIST_SCAN_MAX);
  return taskName === undefined
    ? { queue, segment, limit, after, scan }
    : { queue, segment, limit, taskName, after, scan };
}

/**
 * Examines `candidates` (up to `plan.scan + 1` entries after `plan.after`,
 * in listing order, as a store read them) until `plan.limit` records fit
 * the page or `plan.scan` were examined. `read` gives an entry's record,
 * null when it expired, cannot be read or is of another name. The entry
 * past `plan.scan`, when there is one, only tells that the segment goes on.
 */
export function scanListing<T>(
  plan: ListPlan,
  candidates: readonly T[],
  positionOf: (candidate: T) => ListPosition,
  read: (candidate: T) => TaskRecord | null,
): ListScan {
  const examined = candidates.slice(0, plan.scan);
  const entries: ListedEntry[] = [];
  let kept = 0;
  for (const candidate of examined) {
    const record = read(candidate);
    entries.push({ position: positionOf(candidate), record });
    if (record !== null && recordFitsListing(record, plan) && ++kept === plan.limit) break;
  }
  const last = entries.length > 0 ? entries[entries.length - 1].position : null;
  const ended = entries.length === examined.length && candidates.length <= plan.scan;
  return { entries, last, ended };
}

/** The page of `scan`: the records that fit `plan`, and the cursor after the last one looked at. */
export function listedPage(plan: ListPlan, scan: ListScan): TaskPage {
  const records: TaskRecord[] = [];
  for (const { position, record } of scan.entries) {
    if (record === null || !recordFitsListing(record, plan)) continue;
    records.push(record);
    if (records.length === plan.limit) {
      const atEnd = scan.ended && scan.last !== null && samePosition(position, scan.last);
      return { records, next: atEnd ? null : encodeListCursor(plan, position) };
    }
  }
  const next = scan.ended || scan.last === null ? null : encodeListCursor(plan, scan.last);
  return { records, next };
}

/**
 * Whether a record read from a segment belongs on its page: still in that
 * segment (listing and reading are two steps on some stores, and a task
 * listed live may have finished since) and of the name asked for.
 */
export function recordFitsListing(
  record: TaskRecord,
  plan: Pick<ListPlan, 'segment' | 'taskName'>,
): boolean {
  const { status } = record;
  if (plan.taskName !== undefined && record.task.name !== plan.taskName) return false;
  if (isFinishedSegment(plan.segment)) {
    return FINISHED_STATUSES.has(status) && finishedSegment(status) === plan.segment;
  }
  return (
    status === (plan.segment === 'running' ? TaskResultStatus.RUNNING : TaskResultStatus.READY)
  );
}

/** A position's tie-break as the whole number a store that breaks ties by row number needs. */
export function integerTie(position: ListPosition): number {
  const tie = Number(position.tie);
  if (!Number.isSafeInteger(tie)) {
    throw new InvalidQueryError(invalidListCursor('is not one this store made'));
  }
  return tie;
}

/** A position's tie-break as the text (a task id) a store that breaks ties by id needs. */
export function textTie(position: ListPosition): string {
  if (typeof position.tie !== 'string') {
    throw new InvalidQueryError(invalidListCursor('is not one this store made'));
  }
  return position.tie;
}

function samePosition(a: ListPosition, b: ListPosition): boolean {
  return a.score === b.score && a.tie === b.tie;
}

/** Version of the cursor layout, first in every cursor. */
const CURSOR_VERSION = 1;

function encodeListCursor(plan: ListPlan, position: ListPosition): string {
  const json = JSON.stringify([
    CURSOR_VERSION,
    plan.queue,
    plan.segment,
    position.score,
    position.tie,
  ]);
  return Buffer.from(json, 'utf8').toString('base64url');
}

function decodeListCursor(cursor: string, queue: string, segment: QueueSegment): ListPosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidQueryError(invalidListCursor('cannot be read'));
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 5 ||
    parsed[0] !== CURSOR_VERSION ||
    typeof parsed[3] !== 'number' ||
    !Number.isFinite(parsed[3]) ||
    (typeof parsed[4] !== 'string' && typeof parsed[4] !== 'number')
  ) {
    throw new InvalidQueryError(invalidListCursor('cannot be read'));
  }
  if (parsed[1] !== queue || parsed[2] !== segment) {
    throw new InvalidQueryError(
      invalidListCursor(`belongs to the ${shown(parsed[2])} tasks of queue ${shown(parsed[1])}`),
    );
  }
  return { score: parsed[3], tie: parsed[4] };
}

import { BadRequestException } from '@nestjs/common';
import { invalidDashboardInput } from './dashboard.messages';
import type { QueueLimits } from '../core/queue-limits';
import { QUEUE_SEGMENTS, type QueueSegment } from '../core/queue-segment';

/** Most tasks one list page or one action by ids takes. */
export const MAX_PAGE = 500;
const DEFAULT_PAGE = 50;
export const MAX_IDS = 1000;

const bad = (name: string, expected: string): BadRequestException =>
  new BadRequestException(invalidDashboardInput(name, expected));

const isWhole = (value: unknown, min: number): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= min;

export function segmentParam(value: string | undefined): QueueSegment {
  const segment = (value ?? 'ready') as QueueSegment;
  if (!QUEUE_SEGMENTS.includes(segment))
    throw bad('segment', `must be one of ${QUEUE_SEGMENTS.join(', ')}`);
  return segment;
}

export function limitParam(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_PAGE;
  const limit = Number(value);
  if (!isWhole(limit, 1) || limit > MAX_PAGE)
    throw bad('limit', `must be a whole number from 1 to ${MAX_PAGE}`);
  return limit;
}

/** An optional text parameter: absent or empty is undefined. */
export function textParam(name: string, value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw bad(name, 'must be a string');
  return value;
}

/** What a bulk action's body says: the tasks by id, or those a filter matches. */
export interface BulkTarget {
  ids?: string[];
  queue?: string;
  task?: string;
  status?: 'failed' | 'cancelled' | 'successful';
  dryRun: boolean;
}

export function bulkTarget(body: unknown): BulkTarget {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw bad('body', 'must be a JSON object: { ids } or { queue, task, status }, with dryRun');
  }
  const given = body as Record<string, unknown>;
  const { ids, dryRun, status } = given;
  if (ids !== undefined) {
    if (
      !Array.isArray(ids) ||
      ids.length > MAX_IDS ||
      ids.some((id) => typeof id !== 'string' || id === '')
    ) {
      throw bad('ids', `must be an array of at most ${MAX_IDS} task ids`);
    }
  }
  if (dryRun !== undefined && typeof dryRun !== 'boolean')
    throw bad('dryRun', 'must be true or false');
  if (
    status !== undefined &&
    status !== 'failed' &&
    status !== 'cancelled' &&
    status !== 'successful'
  ) {
    throw bad('status', 'must be "failed", "cancelled" or "successful"');
  }
  const target: BulkTarget = { dryRun: dryRun === true };
  if (ids !== undefined) target.ids = [...new Set(ids as string[])];
  const queue = textParam('queue', given.queue);
  const task = textParam('task', given.task);
  if (queue !== undefined) target.queue = queue;
  if (task !== undefined) target.task = task;
  if (status !== undefined) target.status = status;
  if (target.ids === undefined && queue === undefined && task === undefined) {
    throw bad('body', 'must name the tasks: ids, or a queue (and a task name)');
  }
  return target;
}

/** A queue's limits as PUT sends them: `{ concurrency?, rateLimit?: { max, perMs } }`, or null to lift them. */
export function limitsBody(body: unknown): QueueLimits | null {
  if (body === null || body === undefined || body === '') return null;
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw bad('body', 'must be { concurrency?, rateLimit?: { max, perMs } } or null');
  }
  const { concurrency, rateLimit, ...rest } = body as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw bad(unknown[0], 'is not a limit (concurrency, rateLimit)');
  const limits: QueueLimits = {};
  if (concurrency !== undefined && concurrency !== null) {
    if (!isWhole(concurrency, 1)) throw bad('concurrency', 'must be a whole number of at least 1');
    limits.concurrency = concurrency;
  }
  if (rateLimit !== undefined && rateLimit !== null) {
    const { max, perMs } = rateLimit as Record<string, unknown>;
    if (typeof rateLimit !== 'object' || !isWhole(max, 1) || !isWhole(perMs, 1)) {
      throw bad('rateLimit', 'must be { max, perMs } with whole numbers of at least 1');
    }
    limits.rateLimit = { max, perMs };
  }
  return limits.concurrency === undefined && limits.rateLimit === undefined ? null : limits;
}

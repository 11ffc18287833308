import type { QueueLimits } from '../core/queue-limits';
import { shown } from '../core/shown';
import { isValidName } from '../core/validate-name.util';

/** Refuses `option` with `problem`, as BackendConfigReader.fail does. */
type Fail = (option: string, problem: string) => never;

const QUEUE_FIELDS = ['name', 'concurrency', 'rateLimit'];

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isWhole = (value: unknown, min: number): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= min;

/**
 * One entry of a backend's `queues`: a name, or `{ name, concurrency?,
 * rateLimit? }`. Its name and its limits, each checked (`fail` names the
 * entry); the name alone is checked by the caller with the others.
 *
 * @internal
 */
export function readQueueEntry(
  entry: unknown,
  index: number,
  fail: Fail,
): { name: unknown; limits: QueueLimits | null } {
  if (!isObject(entry)) return { name: entry, limits: null };
  const where = `queues[${index}]`;
  for (const key of Object.keys(entry)) {
    if (!QUEUE_FIELDS.includes(key)) {
      fail(where, `has ${shown(key)}; a queue is { name, concurrency?, rateLimit? }`);
    }
  }
  if (!isValidName(entry.name)) fail(`${where}.name`, 'must be a queue name');
  const limits: QueueLimits = {};
  if (entry.concurrency !== undefined) {
    if (!isWhole(entry.concurrency, 1)) {
      fail(`${where}.concurrency`, 'must be a whole number of at least 1 (tasks running at once)');
    }
    limits.concurrency = entry.concurrency;
  }
  const rate = entry.rateLimit;
  if (rate !== undefined) {
    if (!isObject(rate) || !isWhole(rate.max, 1) || !isWhole(rate.perMs, 1)) {
      fail(
        `${where}.rateLimit`,
        'must be { max, perMs }, both whole numbers of at least 1 (at most max starts per perMs ms)',
      );
    }
    const extra = Object.keys(rate).filter((key) => key !== 'max' && key !== 'perMs');
    if (extra.length > 0)
      fail(`${where}.rateLimit`, `has ${shown(extra[0])}; it is { max, perMs }`);
    limits.rateLimit = { max: rate.max, perMs: rate.perMs };
  }
  return { name: entry.name, limits: Object.keys(limits).length > 0 ? limits : null };
}

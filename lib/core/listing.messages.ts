/**
 * The user-facing sentences of the store's listing reads (task pages,
 * activity buckets), written once (as threadmill.messages.ts).
 */
import { shownList } from './shown';

export const invalidListLimit = (value: unknown, max: number): string =>
  `listTasks: limit must be a whole number from 1 to ${max} (got ${String(value)}). ` +
  `Ask for the rest with the page's \`next\` cursor.`;

export const invalidPeekCount = (value: unknown): string =>
  `peek: count must be a whole number, 0 or more (got ${String(value)}); 0 reads nothing. ` +
  `Page through a long segment with listTasks.`;

export const invalidListSegment = (value: unknown, segments: readonly string[]): string =>
  `listTasks: segment must be one of ${shownList(segments)} ` + `(got ${JSON.stringify(value)}).`;

export const invalidListCursor = (detail: string): string =>
  `listTasks: the cursor ${detail}. Send back a page's \`next\` unchanged, with the same queue ` +
  `and segment, or no cursor to start from the first task.`;

export const invalidActivityBucket = (value: unknown): string =>
  `activity: bucketMs must be a whole number of seconds in milliseconds, at least 1000 ` +
  `(got ${String(value)}).`;

export const invalidActivityWindow = (windowMs: unknown, bucketMs: number, max: number): string =>
  `activity: windowMs must be a whole number of milliseconds of at least one bucket ` +
  `(${bucketMs} ms) and at most ${max} buckets (got ${String(windowMs)}). Use larger buckets ` +
  `for a longer window.`;

import type { QueueCounts, QueueRates } from '../core/backend-telemetry.interface';
import type { QueueSegment } from '../core/queue-segment';
import { abbreviateCount, fit } from './inspector-format';

export {
  abbreviateCount,
  EMPTY_CELL,
  fit,
  relativeTime,
  truncate,
  wrapLines,
} from './inspector-format';
export {
  type FittedColumn,
  fitColumns,
  TAB_COLUMNS,
  tableHeader,
  tableRow,
  type TaskColumn,
} from './inspector-columns';
export { type DetailLine, detailLines, type DetailTone } from './inspector-detail-lines';

/**
 * Pure text functions of the inspector: everything it shows is computed here
 * from plain data, so it is unit-tested without a terminal and the Ink layer
 * (inspector.app.ts) only arranges these strings in boxes. This file holds
 * the tab and queue labels; the text primitives (inspector-format.ts), the
 * task table (inspector-columns.ts) and the detail lines
 * (inspector-detail-lines.ts) are re-exported from it.
 *
 * @internal
 */

/** The tabs in key order: `1` is Running ... `5` is Failed, `6` Cancelled. */
export const INSPECTOR_TABS: readonly { segment: QueueSegment; title: string }[] = [
  { segment: 'running', title: 'Running' },
  { segment: 'ready', title: 'Ready' },
  { segment: 'deferred', title: 'Deferred' },
  { segment: 'successful', title: 'Successful' },
  { segment: 'failed', title: 'Failed' },
  { segment: 'cancelled', title: 'Cancelled' },
];

/** `Ready 1.2k`: a tab's title with its abbreviated count (`?` while unknown). */
export function tabLabel(index: number, segment: QueueSegment, counts: QueueCounts | null): string {
  const tab = INSPECTOR_TABS[index];
  const count = counts === null ? '?' : abbreviateCount(counts[segment]);
  return `${index + 1} ${tab?.title ?? segment} ${count}`;
}

/** The selected queue's throughput over the telemetry window: `last 2 s: 12 in, 10 out (1 failed)`. */
export function ratesLine(rates: QueueRates): string {
  const seconds = Math.round(rates.intervalMs / 100) / 10;
  return (
    `last ${seconds} s: ${abbreviateCount(rates.ingress)} in, ` +
    `${abbreviateCount(rates.egress)} out (${abbreviateCount(rates.failed)} failed)`
  );
}

/** What marks a paused queue in the queue list, before its counts. */
export const PAUSED_MARK = '‖';

/**
 * A queue in the queue list: its name, PAUSED_MARK when it is paused, and how
 * many tasks wait and run, in `width` characters.
 */
export function queueLine(
  name: string,
  counts: QueueCounts | undefined,
  width: number,
  paused = false,
): string {
  const summary =
    (paused ? `${PAUSED_MARK} ` : '') +
    (counts === undefined
      ? '?'
      : `${abbreviateCount(counts.ready)} ▸ ${abbreviateCount(counts.running)}`);
  const nameWidth = Math.max(1, width - summary.length - 1);
  return `${fit(name, nameWidth)} ${summary}`.slice(0, Math.max(width, 0));
}

/** The first visible row so that `selected` stays within a window of `height` rows. */
export function scrollOffset(
  selected: number,
  previousOffset: number,
  height: number,
  total: number,
): number {
  if (height <= 0 || total <= height) return 0;
  let offset = Math.min(previousOffset, total - height);
  if (selected < offset) offset = selected;
  if (selected >= offset + height) offset = selected - height + 1;
  return Math.max(0, offset);
}

import { limitsWord } from '../core/control.messages';
import type { QueueSummary } from '../queue/queue-state.interface';

const COLUMNS = [
  'QUEUE',
  'STATE',
  'READY',
  'RUNNING',
  'DEFERRED',
  'SUCCESSFUL',
  'FAILED',
  'CANCELLED',
  'LIMITS',
];

/**
 * The queues of `threadmill queues list` as a plain text table, one line per
 * queue under a header: names left-aligned, counts right-aligned, so it reads
 * in a terminal and splits on whitespace in a script.
 *
 * @internal
 */
export function queueTable(queues: readonly QueueSummary[]): string[] {
  const rows = queues.map(({ queue, state, counts }) => [
    queue,
    state.paused ? 'paused' : 'active',
    ...[
      counts.ready,
      counts.running,
      counts.deferred,
      counts.successful,
      counts.failed,
      counts.cancelled,
    ].map(String),
    limitsWord(state.limits),
  ]);
  const widths = COLUMNS.map((title, c) => Math.max(title.length, ...rows.map((r) => r[c].length)));
  const line = (cells: string[]): string =>
    cells
      .map((cell, c) =>
        c < 2 || c === COLUMNS.length - 1 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]),
      )
      .join('  ')
      .trimEnd();
  return [line(COLUMNS), ...rows.map(line)];
}

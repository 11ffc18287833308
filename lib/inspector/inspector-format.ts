/**
 * The inspector's text primitives: counts, relative times, and strings cut,
 * wrapped or padded to a width. Every other text of the screen is built
 * from these.
 *
 * @internal
 */

/** Shown for a time or value that is not set. */
export const EMPTY_CELL = '-';
const ELLIPSIS = '…';

const UNITS: readonly { size: number; suffix: string }[] = [
  { size: 1e9, suffix: 'B' },
  { size: 1e6, suffix: 'M' },
  { size: 1e3, suffix: 'k' },
];

/**
 * A count in at most four characters: `999`, `1.2k`, `12k`, `1.2M`. Rounds
 * down, so a count never looks bigger than it is (999,999 is `999k`, not `1000k`).
 */
export function abbreviateCount(count: number): string {
  const n = Math.max(0, Math.floor(count));
  for (const { size, suffix } of UNITS) {
    if (n < size) continue;
    const scaled = n / size;
    if (scaled >= 10) {
      return `${Math.floor(scaled)}${suffix}`;
    }
    const tenths = Math.floor(scaled * 10) / 10;
    return `${Number.isInteger(tenths) ? tenths.toFixed(0) : tenths.toFixed(1)}${suffix}`;
  }
  return String(n);
}

/** `12s ago`, `5m ago`, `3h ago`, `2d ago`, or `in 5m` for a future time; `-` when unset. */
export function relativeTime(date: Date | null, now: Date): string {
  if (date === null) return EMPTY_CELL;
  const deltaMs = now.getTime() - date.getTime();
  const seconds = Math.floor(Math.abs(deltaMs) / 1000);
  if (seconds < 1) return 'now';
  const amount =
    seconds < 60
      ? `${seconds}s`
      : seconds < 3600
        ? `${Math.floor(seconds / 60)}m`
        : seconds < 86_400
          ? `${Math.floor(seconds / 3600)}h`
          : `${Math.floor(seconds / 86_400)}d`;
  return deltaMs >= 0 ? `${amount} ago` : `in ${amount}`;
}

/** Cut `text` to `width` characters, marking the cut with an ellipsis. */
export function truncate(text: string, width: number): string {
  if (width <= 0) return '';
  if (text.length <= width) return text;
  return width === 1 ? ELLIPSIS : `${text.slice(0, width - 1)}${ELLIPSIS}`;
}

/**
 * `text` word-wrapped into at most `maxLines` lines of at most `width`
 * characters; what does not fit ends the last line with an ellipsis. A word
 * longer than a line is cut across lines.
 */
export function wrapLines(text: string, width: number, maxLines: number): string[] {
  if (width <= 0 || maxLines <= 0) return [];
  const lines: string[] = [];
  let line = '';
  for (const word of text.replace(/\s+/g, ' ').trim().split(' ')) {
    const longer = line === '' ? word : `${line} ${word}`;
    if (longer.length <= width) {
      line = longer;
      continue;
    }
    if (line !== '') lines.push(line);
    let rest = word;
    for (; rest.length > width; rest = rest.slice(width)) lines.push(rest.slice(0, width));
    line = rest;
  }
  if (line !== '') lines.push(line);
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, maxLines);
  kept[maxLines - 1] = truncate(`${kept[maxLines - 1]} ${lines[maxLines]}`, width);
  return kept;
}

/** `text` cut or padded to exactly `width` characters. */
export function fit(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  const cut = truncate(text.replace(/\s+/g, ' '), width);
  return align === 'right' ? cut.padStart(width) : cut.padEnd(width);
}

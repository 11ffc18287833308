import type { QueueLimits, Segment } from './api-types';

export const SEGMENT_LABELS: Record<Segment, string> = {
  ready: 'Ready',
  running: 'Running',
  deferred: 'Deferred',
  successful: 'Successful',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

const numberFormat = new Intl.NumberFormat('en');

export function count(value: number): string {
  return numberFormat.format(value);
}

/** Local date and time of an ISO instant; '—' for none. */
export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  const today = new Date().toDateString() === date.toDateString();
  return today
    ? date.toLocaleTimeString()
    : `${date.toLocaleDateString()} ${date.toLocaleTimeString()}`;
}

/** A span of milliseconds as `850 ms`, `12.3 s`, `4 min 5 s`, `2 h 10 min`. */
export function duration(ms: number): string {
  const sign = ms < 0 ? '-' : '';
  const abs = Math.abs(ms);
  if (abs < 1000) return `${sign}${Math.round(abs)} ms`;
  if (abs < 60_000) return `${sign}${(abs / 1000).toFixed(abs < 10_000 ? 2 : 1)} s`;
  const minutes = Math.floor(abs / 60_000);
  const seconds = Math.floor((abs % 60_000) / 1000);
  if (minutes < 60) return `${sign}${minutes} min${seconds ? ` ${seconds} s` : ''}`;
  return `${sign}${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** How long ago an ISO instant was. */
export function ago(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '—';
  return `${duration(now - new Date(iso).getTime())} ago`;
}

export function limitsText(limits: QueueLimits | null): string {
  if (!limits) return 'none';
  const parts: string[] = [];
  if (limits.concurrency !== undefined) parts.push(`${limits.concurrency} at once`);
  if (limits.rateLimit)
    parts.push(`${limits.rateLimit.max} per ${duration(limits.rateLimit.perMs)}`);
  return parts.length ? parts.join(', ') : 'none';
}

/** A JSON value for a <pre>, indented. */
export function json(value: unknown): string {
  if (value === undefined) return '—';
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return '(not JSON)';
  }
}

/** Progress in one line: `{ done: 3, of: 10 }` as `3 / 10`, else compact JSON. */
export function progressText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'object') {
    const { done, of } = value as { done?: unknown; of?: unknown };
    if (typeof done === 'number' && typeof of === 'number') return `${done} / ${of}`;
  }
  const text = JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

/** The first characters of a task id, for narrow cells (the full id stays in the title). */
export function shortId(id: string): string {
  return id.length > 13 ? `${id.slice(0, 8)}…` : id;
}

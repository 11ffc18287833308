import type { TaskRecord } from '../../core/task-record.interface';
import type { PostgresTx } from './postgres-connection';
import { channelName } from './postgres-names';

/** Largest payload one notification carries (Postgres refuses 8,000 bytes and more). */
const PAYLOAD_MAX_BYTES = 7000;

/** A finished task as its notification carries it. */
export interface FinishedNotice {
  id: string;
  name: string;
  queue: string;
  status: string;
}

/** A live event as its notification carries it. */
export interface LiveNotice {
  event: 'enqueued' | 'started' | 'progressed';
  id: string;
  queue: string;
  name: string;
  progress?: string;
}

/** `items` as JSON arrays, each under PAYLOAD_MAX_BYTES (an item is far smaller). */
export function payloads(items: readonly unknown[]): string[] {
  const chunks: string[] = [];
  let open: string[] = [];
  let bytes = 2;
  for (const item of items) {
    const text = JSON.stringify(item);
    const size = Buffer.byteLength(text) + 1;
    if (open.length > 0 && bytes + size > PAYLOAD_MAX_BYTES) {
      chunks.push(`[${open.join(',')}]`);
      open = [];
      bytes = 2;
    }
    open.push(text);
    bytes += size;
  }
  if (open.length > 0) chunks.push(`[${open.join(',')}]`);
  return chunks;
}

/**
 * What the writing steps of one alias announce, inside their transaction and
 * sent with its COMMIT: queues that got ready work (to every idle consumer,
 * and at once to this process's), finished tasks and live events (only while
 * a listener of that feed is live). Payloads are small JSON; a listener
 * reads the rows for more.
 *
 * @internal
 */
export class PostgresNotices {
  private readonly channels: Record<'work' | 'finished' | 'live', string>;

  /** @param workAdded wakes this process's idle consumers of the queues. */
  constructor(
    schema: string,
    alias: string,
    private readonly workAdded: (queues: readonly string[]) => void,
  ) {
    this.channels = {
      work: channelName(schema, alias, 'work'),
      finished: channelName(schema, alias, 'finished'),
      live: channelName(schema, alias, 'live'),
    };
  }

  channel(kind: 'work' | 'finished' | 'live'): string {
    return this.channels[kind];
  }

  /** Tasks of `queues` became ready. */
  work(tx: PostgresTx, queues: Iterable<string>): void {
    const distinct = [...new Set(queues)];
    if (distinct.length === 0) return;
    for (const queue of distinct) tx.notify(this.channels.work, queue);
    tx.afterCommit(() => this.workAdded(distinct));
  }

  /** Tasks of `queues` became ready and were announced (a call that notifies itself): wakes this process's. */
  wake(queues: readonly string[]): void {
    if (queues.length > 0) this.workAdded(queues);
  }

  /** A running task of `queue` ended: a concurrency limit's room freed, if it has one. */
  freed(tx: PostgresTx, queue: string): void {
    tx.notify(this.channels.work, queue, 'limited');
  }

  finished(tx: PostgresTx, records: readonly TaskRecord[]): void {
    const items: FinishedNotice[] = records.map(({ id, task, status }) => ({
      id,
      name: task.name,
      queue: task.queue,
      status,
    }));
    for (const payload of payloads(items)) tx.notify(this.channels.finished, payload, 'finished');
  }

  live(
    tx: PostgresTx,
    event: LiveNotice['event'],
    records: readonly TaskRecord[],
    progress?: string,
  ): void {
    if (records.length === 0) return;
    const items: LiveNotice[] = records.map(({ id, task }) => ({
      event,
      id,
      queue: task.queue,
      name: task.name,
      ...(progress !== undefined && { progress }),
    }));
    for (const payload of payloads(items)) tx.notify(this.channels.live, payload, 'live');
  }
}

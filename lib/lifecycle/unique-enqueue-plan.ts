import { UniqueKeyHeldError } from '../core/errors/unique-key-held.error';
import { uniqueKeyHeldAgain } from '../core/manual-retry';
import type { TaskRecord } from '../core/task-record.interface';
import type {
  EnqueuePlan,
  EnqueueWrite,
  KeyTaken,
  StoredKeyHold,
} from '../core/unique-enqueue-plan';
import { decideUnique } from '../core/unique-key';
import { uniqueKeyHeld } from '../core/unique-key.messages';

/**
 * The writes of one enqueue of `records` with unique keys, as if they were
 * sent one by one: a key taken by an earlier record of the batch holds for
 * the later ones. Nothing is written here; a store runs it and then applies
 * the writes inside the same transaction (SQLite) or synchronous step
 * (memory), so the check and the take are one atomic step. Throws
 * UniqueKeyHeldError, before any write, when a window holds a key whose
 * task is gone.
 *
 * @param holdOf the key's stored hold, read from the store, or undefined when none.
 * @param now the store's clock (ms).
 */
export function planUniqueEnqueue(
  alias: string,
  records: readonly TaskRecord[],
  holdOf: (key: string) => StoredKeyHold | undefined,
  now: number,
): EnqueuePlan {
  const writes: EnqueueWrite[] = [];
  const returned: TaskRecord[] = [];
  // Keys this batch has taken or replaced: their holder is the planned write, waiting and fresh.
  const planned = new Map<string, { write: EnqueueWrite; windowEnd: number | null }>();
  for (const record of records) {
    const unique = record.task.unique;
    if (unique === undefined) {
      writes.push({ kind: 'add', record });
      returned.push(record);
      continue;
    }
    const local = planned.get(unique.key);
    const hold: StoredKeyHold | undefined = local
      ? {
          holderId: local.write.record.id,
          windowEnd: local.windowEnd,
          holder: local.write.record,
          state: 'fresh',
        }
      : holdOf(unique.key);
    const windowEnd = hold?.windowEnd ?? null;
    const windowHeld = windowEnd !== null && windowEnd > now;
    const holder = hold?.holder ?? null;
    // Debounce replaces only a holder waiting in the queue the enqueue names.
    const state =
      hold === undefined
        ? 'gone'
        : hold.state === 'fresh' && holder?.task.queue !== record.task.queue
          ? 'started'
          : hold.state;
    const decision = decideUnique(unique.mode, state, windowHeld);
    if (decision === 'gone' && hold) {
      throw new UniqueKeyHeldError(
        uniqueKeyHeld(unique.key, alias, hold.holderId, new Date(windowEnd ?? now)),
        unique.key,
        hold.holderId,
        new Date(windowEnd ?? now),
      );
    }
    if ((decision === 'return' || decision === 'replace') && holder) {
      if (decision === 'return') {
        returned.push(holder);
        continue;
      }
      const replaced: TaskRecord = { ...record, id: holder.id };
      if (local) local.write.record = replaced;
      else {
        const write: EnqueueWrite = { kind: 'replace', record: replaced };
        writes.push(write);
        planned.set(unique.key, { write, windowEnd });
      }
      returned.push(replaced);
      continue;
    }
    const taken: KeyTaken = {
      key: unique.key,
      mode: unique.mode,
      windowEnd: unique.mode === 'window' ? now + (unique.ttlMs ?? 0) : null,
    };
    const write: EnqueueWrite = { kind: 'add', record, taken };
    writes.push(write);
    planned.set(unique.key, { write, windowEnd: taken.windowEnd });
    returned.push(record);
  }
  return { writes, returned };
}

/**
 * Whether task `id` may take `hold`'s key now: nobody holds it, `id` does,
 * or its holder has ended and no window of it lasts (a task retried by
 * hand takes its key back so; see uniqueKeyHeldAgain).
 */
export function isKeyFreeFor(hold: StoredKeyHold | undefined, id: string, now: number): boolean {
  if (!hold || hold.holderId === id) return true;
  const ended = hold.state === 'final' || hold.state === 'gone';
  return ended && (hold.windowEnd === null || hold.windowEnd <= now);
}

/**
 * The key a task retried by hand takes back (uniqueKeyHeldAgain), given
 * `holdOf` its key's hold now: null when it has none to take or another
 * task holds it (isKeyFreeFor). A hold it still has keeps its window.
 */
export function keyTakenBack(
  retried: TaskRecord,
  holdOf: (key: string) => StoredKeyHold | undefined,
  now: number,
): KeyTaken | null {
  const key = uniqueKeyHeldAgain(retried);
  if (key === null || !retried.task.unique) return null;
  const hold = holdOf(key);
  if (!isKeyFreeFor(hold, retried.id, now)) return null;
  const windowEnd = hold?.holderId === retried.id ? hold.windowEnd : null;
  return { key, mode: retried.task.unique.mode, windowEnd };
}

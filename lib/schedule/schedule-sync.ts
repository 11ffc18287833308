import type { ScheduleStore } from '../core';
import type { DeclaredSchedule } from './declared-schedules';
import { definitionText } from './schedule-definition';
import { TickSequence } from './tick-sequence';

/** What one sync changed. */
export interface SyncCounts {
  added: number;
  changed: number;
  removed: number;
}

/**
 * Makes a backend's stored declared schedules those of the code: each
 * declared one added or replaced (an unchanged one keeps its cursor, so a
 * restart neither skips nor repeats a tick), each stored declared one the
 * code no longer has removed. Schedules added at run time are never removed;
 * one whose id a declaration takes becomes declared. A paused schedule stays
 * paused. A pool runs it once as it starts: during a rolling deploy the last
 * pool to start wins until the old ones are gone.
 *
 * @internal
 */
export async function syncDeclared(
  store: ScheduleStore,
  declared: readonly DeclaredSchedule[],
): Promise<SyncCounts> {
  const counts: SyncCounts = { added: 0, changed: 0, removed: 0 };
  const stored = new Map((await store.listSchedules()).map((entry) => [entry.id, entry]));
  const nowMs = await store.scheduleClock();
  for (const { id, definition } of declared) {
    const text = definitionText(definition);
    const existing = stored.get(id);
    if (existing?.origin === 'declared' && existing.definition === text) continue;
    const paused = existing?.paused ?? false;
    const nextTickMs = paused ? null : new TickSequence(definition.rule).nextAfter(nowMs);
    await store.putSchedule({ id, definition: text, origin: 'declared', paused, nextTickMs });
    if (existing) counts.changed++;
    else counts.added++;
  }
  const ids = new Set(declared.map(({ id }) => id));
  for (const entry of stored.values()) {
    if (entry.origin !== 'declared' || ids.has(entry.id)) continue;
    if (await store.removeSchedule(entry.id)) counts.removed++;
  }
  return counts;
}

import type { ScheduleStore } from '../core/ports/schedule-store.port';
import type { DeclaredSchedule } from './declared-schedules';
import { appOf } from './schedule-app';
import { definitionText } from './schedule-definition';
import { TickSequence } from './tick-sequence';

/** What one sync changed. */
export interface SyncCounts {
  added: number;
  changed: number;
  removed: number;
  /** The declared schedules this app took over from another app that declares the same id. */
  taken: { id: string; from: string }[];
}

/**
 * Makes a backend's stored declared schedules of `app` those of the code:
 * each declared one added or replaced (an unchanged one keeps its cursor, so
 * a restart neither skips nor repeats a tick), each stored one this app
 * declared and the code no longer has removed. Another app's declared
 * schedules are never removed (two apps on one store each keep theirs), nor
 * are schedules added at run time; a declaration whose id one of those has
 * takes it over. A paused schedule stays paused. A pool runs it once as it
 * starts: during a rolling deploy the last pool to start wins until the old
 * ones are gone.
 *
 * @internal
 */
export async function syncDeclared(
  store: ScheduleStore,
  declared: readonly DeclaredSchedule[],
  app: string,
): Promise<SyncCounts> {
  const counts: SyncCounts = { added: 0, changed: 0, removed: 0, taken: [] };
  const stored = new Map((await store.listSchedules()).map((entry) => [entry.id, entry]));
  const nowMs = await store.scheduleClock();
  for (const { id, definition } of declared) {
    const text = definitionText(definition);
    const existing = stored.get(id);
    const ours = existing?.origin === 'declared' && appOf(existing) === app;
    if (ours && existing?.definition === text) continue;
    if (existing?.origin === 'declared' && !ours) counts.taken.push({ id, from: appOf(existing) });
    const paused = existing?.paused ?? false;
    const nextTickMs = paused ? null : new TickSequence(definition.rule).nextAfter(nowMs);
    await store.putSchedule({ id, definition: text, origin: 'declared', app, paused, nextTickMs });
    if (existing) counts.changed++;
    else counts.added++;
  }
  const ids = new Set(declared.map(({ id }) => id));
  for (const entry of stored.values()) {
    if (entry.origin !== 'declared' || appOf(entry) !== app || ids.has(entry.id)) continue;
    if (await store.removeSchedule(entry.id)) counts.removed++;
  }
  return counts;
}

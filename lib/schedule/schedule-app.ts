import type { StoredSchedule } from '../core/ports/schedule-store.port';
import { DEFAULT_APP_NAME } from '../core/threadmill.constants';

/**
 * The app a stored schedule belongs to: the one recorded with it, else the
 * default app (it was stored before apps were recorded, by a single app).
 */
export function appOf(schedule: Pick<StoredSchedule, 'app'>): string {
  return schedule.app ?? DEFAULT_APP_NAME;
}

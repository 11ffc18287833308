import { median } from './metrics';
import { countLabel, type FigureRow, type Target } from './report';
import type { RunnerResults } from './suite';

/** The dashboard row's key, for the page that explains it. */
export const DASHBOARD_PAINT_ROW_KEY = 'dashboard.firstPaint';

/** The promise: the overview shows its counts within a second, whatever waits in the store. */
const DASHBOARD_PAINT_TARGET: Target = {
  text: '< 1000 ms',
  check: (row) => (row.threadmill === null ? null : row.threadmill < 1000),
};

/**
 * "dashboard overview, first paint": from the navigation to the counts of
 * the queue shown, with `waiting` tasks waiting on Redis, the median of
 * the loads; Threadmill on Redis alone.
 */
export function dashboardPaintRow(
  config: { dashboardWaiting: number },
  pick: (
    pickOne: (r: RunnerResults) => number | null,
  ) => Omit<FigureRow, 'key' | 'label' | 'unit' | 'better'>,
): FigureRow {
  return {
    key: DASHBOARD_PAINT_ROW_KEY,
    label: `dashboard overview with ${countLabel(config.dashboardWaiting)} waiting: counts shown after navigation`,
    unit: 'ms',
    better: 'lower',
    ...pick((r) => (r.dashboardPaintMs.length === 0 ? null : median(r.dashboardPaintMs))),
    target: DASHBOARD_PAINT_TARGET,
  };
}

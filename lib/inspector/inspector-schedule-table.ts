import type { ReactElement, ReactNode } from 'react';

import { ACCENT, type InspectorElements } from './inspector-elements';
import type { Layout } from './inspector-layout';
import { scheduleHeader, scheduleLine } from './inspector-schedules';
import type { InspectorState } from './inspector-state';
import type { TableScroll } from './inspector-task-table';
import { scrollOffset } from './inspector.view';

/**
 * The inspector's Schedules view (`s`), in the task pane's place: each
 * schedule of the backend with its next tick, last tick and that tick's task
 * status, a window of rows around the cursor.
 *
 * @internal
 */
export function renderScheduleTable(
  ui: InspectorElements,
  state: InspectorState,
  box: Layout,
  scroll: TableScroll,
): ReactElement {
  const width = Math.max(10, box.columns - box.leftWidth - 4); // borders and padding
  const visible = Math.max(1, box.topHeight - 5);
  const rows = state.schedules ?? [];
  const offset = scrollOffset(state.scheduleIndex, scroll.current, visible, rows.length);
  scroll.current = offset;
  const body: ReactNode[] = [
    ui.line('head', scheduleHeader(width), { bold: true, underline: true }),
  ];
  if (state.schedules === null) {
    body.push(ui.line('empty', 'loading…', { dimColor: true }));
  } else if (rows.length === 0) {
    body.push(ui.line('empty', 'no schedules on this backend', { dimColor: true }));
  }
  rows.slice(offset, offset + visible).forEach((row, i) => {
    const selected = offset + i === state.scheduleIndex;
    body.push(
      ui.line(row.id, scheduleLine(row, state.now, width), {
        inverse: selected && state.focus === 'tasks',
        color: selected && state.focus !== 'tasks' ? ACCENT : undefined,
      }),
    );
  });
  return ui.pane(
    `Schedules (${rows.length})`,
    state.focus === 'tasks',
    box.topHeight,
    body,
    box.columns - box.leftWidth,
  );
}

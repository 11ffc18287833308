import type { ReactElement, ReactNode } from 'react';

import type { QueueCounts } from '../core/backend-telemetry.interface';
import type { TaskRecord } from '../core/task-record.interface';
import { ACCENT, type InspectorElements } from './inspector-elements';
import type { Layout } from './inspector-layout';
import type { InspectorState } from './inspector-state';
import {
  abbreviateCount,
  fitColumns,
  INSPECTOR_TABS,
  scrollOffset,
  tabLabel,
  tableHeader,
  tableRow,
} from './inspector.view';

/**
 * The inspector's task pane: the tabs with their counts, the table header,
 * a window of rows around the cursor, and a footer saying which rows show.
 *
 * @internal
 */

/** The first row shown, kept between frames so the window scrolls only as the cursor leaves it. */
export interface TableScroll {
  current: number;
}

export function renderTaskTable(
  ui: InspectorElements,
  state: InspectorState,
  box: Layout,
  scroll: TableScroll,
): ReactElement {
  const queue = state.queues[state.queueIndex] ?? '';
  const { segment, title: tabTitle } = INSPECTOR_TABS[state.tabIndex];
  const counts = state.telemetry?.queues[queue]?.counts ?? null;
  const tableWidth = Math.max(10, box.columns - box.leftWidth - 4); // borders and padding
  const visible = Math.max(1, box.topHeight - 6);
  const offset = scrollOffset(state.taskIndex, scroll.current, visible, state.tasks.length);
  scroll.current = offset;
  const columnsFitted = fitColumns(segment, tableWidth, {
    records: state.tasks.slice(offset, offset + visible),
    now: state.now,
  });
  const tableBody: ReactNode[] = [
    renderTabs(ui, state.tabIndex, counts),
    ui.line('head', tableHeader(columnsFitted), { bold: true, underline: true }),
  ];
  if (!state.tasksLoaded) {
    tableBody.push(ui.line('empty', 'loading…', { dimColor: true }));
  } else if (state.tasks.length === 0) {
    tableBody.push(
      ui.line('empty', `no ${tabTitle.toLowerCase()} tasks in "${queue}"`, { dimColor: true }),
    );
  }
  state.tasks.slice(offset, offset + visible).forEach((task: TaskRecord, i: number) => {
    const index = offset + i;
    const selected = index === state.taskIndex;
    tableBody.push(
      ui.line(task.id, tableRow(columnsFitted, task, state.now), {
        inverse: selected && state.focus === 'tasks',
        color: selected && state.focus !== 'tasks' ? ACCENT : undefined,
      }),
    );
  });
  if (state.tasks.length > 0) {
    const total = counts === null ? null : counts[segment];
    const shown = `${offset + 1}-${Math.min(offset + visible, state.tasks.length)} of ${state.tasks.length}`;
    const more =
      total !== null && total > state.tasks.length
        ? ` listed (${abbreviateCount(total)} in ${tabTitle})`
        : '';
    tableBody.push(
      ui.h(
        ui.Box,
        { key: 'foot', flexGrow: 1, alignItems: 'flex-end' },
        ui.line('f', `${shown}${more}`, { dimColor: true }),
      ),
    );
  }
  return ui.pane(
    'Tasks',
    state.focus === 'tasks',
    box.topHeight,
    tableBody,
    box.columns - box.leftWidth,
  );
}

/** The tab row, the selected tab highlighted. */
function renderTabs(
  ui: InspectorElements,
  tabIndex: number,
  counts: QueueCounts | null,
): ReactElement {
  const { h, Text } = ui;
  // One Text with nested Texts, so a narrow terminal truncates the tab row instead of widening it.
  return h(
    Text,
    { key: 'tabs', wrap: 'truncate' },
    ...INSPECTOR_TABS.map((tab, i) =>
      h(
        Text,
        { key: tab.segment, inverse: i === tabIndex, bold: i === tabIndex },
        tabLabel(i, tab.segment, counts),
      ),
    ).flatMap((label, i) => (i === 0 ? [label] : [h(Text, { key: `gap${i}` }, '  '), label])),
  );
}

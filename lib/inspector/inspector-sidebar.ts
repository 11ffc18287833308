import type { ReactElement, ReactNode } from 'react';

import type { InspectorElements } from './inspector-elements';
import type { Layout } from './inspector-layout';
import type { InspectorState } from './inspector-state';
import { queueLine } from './inspector.view';

/**
 * The inspector's left column: the backend selector (only with several
 * aliases) above the queue list with each queue's counts, a paused one marked.
 *
 * @internal
 */

export function renderSidebar(
  ui: InspectorElements,
  state: InspectorState,
  box: Layout,
): ReactElement {
  const { h, Box } = ui;
  const innerLeft = box.leftWidth - 4; // borders and padding
  const left: ReactNode[] = [];
  if (box.backendsHeight > 0) {
    left.push(
      h(
        Box,
        { key: 'b' },
        ui.pane(
          'Backends',
          state.focus === 'backends',
          box.backendsHeight,
          ui.list(state.aliases, state.aliasIndex, state.focus === 'backends', innerLeft),
          box.leftWidth,
        ),
      ),
    );
  }
  const queueTexts = state.queues.map((q) =>
    queueLine(q, state.telemetry?.queues[q]?.counts, innerLeft - 2, state.paused.includes(q)),
  );
  left.push(
    h(
      Box,
      { key: 'q' },
      ui.pane(
        'Queues ready▸run',
        state.focus === 'queues',
        box.topHeight - box.backendsHeight,
        ui.list(queueTexts, state.queueIndex, state.focus === 'queues', innerLeft),
        box.leftWidth,
      ),
    ),
  );
  return h(Box, { flexDirection: 'column', width: box.leftWidth, flexShrink: 0 }, ...left);
}

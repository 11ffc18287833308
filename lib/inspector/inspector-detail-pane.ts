import type { TextProps } from 'ink' with { 'resolution-mode': 'import' };
import type { ReactElement } from 'react';

import { ALERT, type InspectorElements } from './inspector-elements';
import type { Layout } from './inspector-layout';
import type { InspectorState } from './inspector-state';
import { detailLines, type DetailTone } from './inspector.view';

/**
 * The inspector's detail pane: the open task's lines, scrolled to
 * `detailScroll`, under a title that says which lines are shown.
 *
 * @internal
 */

const TONE_PROPS: Record<DetailTone, TextProps> = {
  field: {},
  heading: { bold: true },
  error: { color: ALERT, bold: true },
  stack: { dimColor: true },
};

/** The pane, or null while no task is open. */
export function renderDetailPane(
  ui: InspectorElements,
  state: InspectorState,
  box: Layout,
): ReactElement | null {
  if (state.detail === null) return null;
  const lines = detailLines(state.detail, state.now);
  const height = Math.max(1, box.detailHeight - 3);
  const from = Math.min(state.detailScroll, Math.max(0, lines.length - height));
  const title =
    `Task ${state.detail.id}` +
    (state.detailNote === null ? '' : `  (${state.detailNote})`) +
    (lines.length > height
      ? `  lines ${from + 1}-${Math.min(from + height, lines.length)} of ${lines.length}`
      : '');
  return ui.pane(
    title,
    state.focus === 'detail',
    box.detailHeight,
    lines.slice(from, from + height).map((l, i) => ui.line(i, l.text, TONE_PROPS[l.tone])),
  );
}

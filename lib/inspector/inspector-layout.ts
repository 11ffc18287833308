import type { InspectorState } from './inspector-state';

/**
 * How the inspector shares the terminal's rows and columns among its panes.
 *
 * @internal
 */

/** Row budget of the screen: header and key help take a line each, the status `statusRows`. */
export interface Layout {
  columns: number;
  rows: number;
  leftWidth: number;
  topHeight: number;
  detailHeight: number;
  backendsHeight: number;
}

export function layout(
  state: InspectorState,
  columns: number,
  rows: number,
  statusRows: number,
): Layout {
  // One row short of the terminal: Ink clears the whole screen on every frame
  // that is as tall as the terminal, which flickers.
  const main = Math.max(8, rows - 1 - 2 - statusRows);
  const detailHeight = state.detail === null ? 0 : Math.max(5, Math.floor(main * 0.55));
  const topHeight = Math.max(6, main - detailHeight);
  const backendsHeight =
    state.aliases.length > 1 ? Math.min(state.aliases.length + 3, Math.floor(topHeight / 2)) : 0;
  return {
    columns,
    rows,
    leftWidth: Math.max(18, Math.min(32, Math.floor(columns * 0.22))),
    topHeight,
    detailHeight,
    backendsHeight,
  };
}

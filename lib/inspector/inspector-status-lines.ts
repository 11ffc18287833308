import type { ReactElement } from 'react';

import { ALERT, type InspectorElements } from './inspector-elements';
import type { InspectorState } from './inspector-state';
import { ratesLine, wrapLines } from './inspector.view';

/**
 * The full-width lines around the inspector's panes: the title and the
 * status (or why the backend cannot be read) above them, the key help below.
 *
 * @internal
 */

const TITLE = 'Threadmill inspector';
const KEY_HELP =
  '↑↓/jk move  ←→/1-6 tab  ⏎ select  ⇥ pane  esc close  s schedules  r refresh  q quit';
/**
 * Most rows the status line may grow to while the backend cannot be read: the
 * reason (a refused password, an unknown host) comes at the end of the message,
 * and cut at the screen's edge the status would not say what is wrong.
 */
const MAX_STATUS_ROWS = 3;

/** The error, wrapped to the screen's width; none while the backend answers. */
export function errorRows(state: InspectorState, columns: number): string[] {
  return state.error === null ? [] : wrapLines(`⚠ ${state.error}`, columns, MAX_STATUS_ROWS);
}

/** The title: which backend and queue are shown. */
export function renderTitle(ui: InspectorElements, state: InspectorState): ReactElement {
  const alias = state.aliases[state.aliasIndex] ?? '';
  const queue = state.queues[state.queueIndex] ?? '';
  return ui.h(
    ui.Box,
    { height: 1 },
    ui.line('t', `${TITLE} · backend ${alias} · queue ${queue}`, { bold: true }),
  );
}

/** When the counts were read and the queue's throughput, or the `errors` rows. */
export function renderStatus(
  ui: InspectorElements,
  state: InspectorState,
  errors: readonly string[],
): ReactElement {
  const queue = state.queues[state.queueIndex] ?? '';
  const queueRates = state.telemetry?.queues[queue]?.rates;
  const rates = queueRates === undefined ? '' : ` · ${ratesLine(queueRates)}`;
  return ui.h(
    ui.Box,
    { flexDirection: 'column', height: Math.max(1, errors.length) },
    ...(state.error === null
      ? [
          ui.line('s', `counts refreshed ${state.now.toLocaleTimeString()}${rates}`, {
            dimColor: true,
          }),
        ]
      : errors.map((text, i) => ui.line(`s${i}`, text, { color: ALERT, bold: true }))),
  );
}

export function renderKeyHelp(ui: InspectorElements): ReactElement {
  return ui.h(ui.Box, { height: 1 }, ui.line('k', KEY_HELP, { dimColor: true }));
}

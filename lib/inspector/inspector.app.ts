import { Logger } from '@nestjs/common';
import type { TextProps } from 'ink' with { 'resolution-mode': 'import' };
import type { ReactElement, ReactNode } from 'react';

import type { TaskRecord } from '../core/task-record.interface';
import { type InkRuntime, loadInkRuntime } from './ink.loader';
import { InspectorStore, type InspectorState, type InspectorStoreOptions } from './inspector.store';
import {
  abbreviateCount,
  detailLines,
  fit,
  fitColumns,
  INSPECTOR_TABS,
  queueLine,
  ratesLine,
  scrollOffset,
  tabLabel,
  tableHeader,
  tableRow,
  wrapLines,
  type DetailTone,
} from './inspector.view';

/**
 * The inspector's terminal loop: renders an InspectorStore with Ink until `q`.
 * Written with `createElement` calls rather than JSX so that the shared
 * tsconfig needs no JSX setting, and with React and Ink passed in (an
 * InkRuntime) because they are loaded at run time (see ink.loader.ts).
 *
 * @internal
 */

export interface InspectorAppOptions extends InspectorStoreOptions {
  readonly stdout?: NodeJS.WriteStream;
  readonly stdin?: NodeJS.ReadStream;
}

/** xterm's alternate screen: the inspector draws there, and leaving it restores the shell's screen. */
const ENTER_ALTERNATE_SCREEN = '\u001b[?1049h\u001b[H';
const LEAVE_ALTERNATE_SCREEN = '\u001b[?1049l';

const QUIT_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGHUP'];

/** Used when the output is not a terminal (tests), where Ink reports no size. */
const FALLBACK_COLUMNS = 100;
const FALLBACK_ROWS = 24;
const KEY_HELP = '↑↓/jk move  ←→/1-5 tab  ⏎ select  ⇥ pane  esc close  r refresh  q quit';
const TITLE = 'Threadmill inspector';
/** The focused pane and the selection outside it. */
const ACCENT = 'cyan';
const MUTED = 'gray';
const ALERT = 'red';
/**
 * Most rows the status line may grow to while the backend cannot be read: the
 * reason (a refused password, an unknown host) comes at the end of the message,
 * and cut at the screen's edge the status would not say what is wrong.
 */
const MAX_STATUS_ROWS = 3;

export class InspectorApp {
  constructor(private readonly options: InspectorAppOptions) {}

  /**
   * Draws the inspector in the terminal and resolves once the user quits;
   * the terminal is restored either way.
   *
   * @throws OptionalDependencyMissingError when ink or react is not installed.
   */
  async run(): Promise<void> {
    const runtime = await loadInkRuntime();
    const stdout = this.options.stdout ?? process.stdout;
    const stdin = this.options.stdin ?? process.stdin;
    const store = new InspectorStore(this.options);
    // Killed or hung up on, the inspector still leaves raw mode and the
    // alternate screen: the default action of these signals would exit at
    // once and leave the user's terminal unusable. The listener stays until
    // the end (`on`, not `once`): Ink's signal-exit re-sends the signal to the
    // process after its own cleanup, and that second one must not kill it either.
    let quit = (): void => undefined;
    const onSignal = (): void => quit();
    for (const signal of QUIT_SIGNALS) process.on(signal, onSignal);
    stdout.write(ENTER_ALTERNATE_SCREEN);
    // Log lines (a backend's "connection failed, retrying") written while Ink
    // draws would scroll its frame and push the header and status off the
    // screen. Nest's Logger holds them until the screen closes, then prints
    // them on the shell's screen; the status says the same meanwhile.
    Logger.attachBuffer();
    try {
      // The first reads (and the backend's lazy connect) start before the
      // first frame is drawn, so they overlap it instead of following it.
      store.start();
      const instance = runtime.ink.render(renderInspector(runtime, store), {
        stdout,
        stdin,
        exitOnCtrlC: true,
      });
      quit = () => instance.unmount();
      await instance.waitUntilExit();
    } finally {
      for (const signal of QUIT_SIGNALS) process.off(signal, onSignal);
      store.stop();
      stdout.write(LEAVE_ALTERNATE_SCREEN);
      Logger.flush();
    }
  }
}

/** Row budget of the screen: header and key help take a line each, the status `statusRows`. */
interface Layout {
  columns: number;
  rows: number;
  leftWidth: number;
  topHeight: number;
  detailHeight: number;
  backendsHeight: number;
}

function layout(state: InspectorState, columns: number, rows: number, statusRows: number): Layout {
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

/**
 * The inspector's React element for `store`, drawn with `runtime`'s Ink.
 * The component tests render this with ink-testing-library.
 */
export function renderInspector(runtime: InkRuntime, store: InspectorStore): ReactElement {
  const { react: React, ink } = runtime;
  const h = React.createElement;
  const { Box, Text } = ink;

  const pane = (
    title: string,
    focused: boolean,
    height: number,
    body: ReactNode[],
    width?: number,
  ): ReactElement =>
    h(
      Box,
      {
        flexDirection: 'column',
        borderStyle: 'round',
        borderColor: focused ? ACCENT : MUTED,
        paddingX: 1,
        height,
        width,
        flexGrow: width === undefined ? 1 : 0,
        flexShrink: width === undefined ? 1 : 0,
        overflow: 'hidden',
      },
      h(Text, { bold: true, color: focused ? ACCENT : undefined, wrap: 'truncate' }, title),
      ...body,
    );

  const line = (key: string | number, text: string, props: TextProps = {}) =>
    h(Text, { key, wrap: 'truncate', ...props }, text);

  const toneProps: Record<DetailTone, TextProps> = {
    field: {},
    heading: { bold: true },
    error: { color: ALERT, bold: true },
    stack: { dimColor: true },
  };

  const list = (
    items: readonly string[],
    selected: number,
    focused: boolean,
    width: number,
  ): ReactNode[] =>
    items.map((text, i) =>
      line(i, fit(`${i === selected ? '›' : ' '} ${text}`, width), {
        inverse: i === selected && focused,
        color: i === selected && !focused ? ACCENT : undefined,
      }),
    );

  function Screen(): ReactElement {
    const state = React.useSyncExternalStore(store.subscribe, store.getState);
    const { exit } = ink.useApp();
    const { stdout } = ink.useStdout();
    const size = (): { columns: number; rows: number } => ({
      columns: stdout.columns || FALLBACK_COLUMNS,
      rows: stdout.rows || FALLBACK_ROWS,
    });
    const [{ columns, rows }, setSize] = React.useState(size);
    // Column widths are computed here, so a resize must re-render, not only re-layout.
    React.useEffect(() => {
      const onResize = (): void => setSize(size());
      stdout.on('resize', onResize);
      return () => {
        stdout.off('resize', onResize);
      };
    }, [stdout]);
    ink.useInput((input, key) => {
      if (store.press({ ...key, input }) === 'quit') exit();
    });
    const tableOffset = React.useRef(0);

    const errorRows =
      state.error === null ? [] : wrapLines(`⚠ ${state.error}`, columns, MAX_STATUS_ROWS);
    const box = layout(state, columns, rows, Math.max(1, errorRows.length));
    const alias = state.aliases[state.aliasIndex] ?? '';
    const queue = state.queues[state.queueIndex] ?? '';
    const segment = store.segment();
    const counts = state.telemetry?.queues[queue]?.counts ?? null;
    const queueRates = state.telemetry?.queues[queue]?.rates;
    const rates = queueRates === undefined ? '' : ` · ${ratesLine(queueRates)}`;
    const innerLeft = box.leftWidth - 4;

    const header = h(
      Box,
      { height: 1 },
      line('t', `${TITLE} · backend ${alias} · queue ${queue}`, { bold: true }),
    );
    const status = h(
      Box,
      { flexDirection: 'column', height: Math.max(1, errorRows.length) },
      ...(state.error === null
        ? [
            line('s', `counts refreshed ${state.now.toLocaleTimeString()}${rates}`, {
              dimColor: true,
            }),
          ]
        : errorRows.map((text, i) => line(`s${i}`, text, { color: ALERT, bold: true }))),
    );

    // Left column: backend selector (only with several aliases) and queues.
    const left: ReactNode[] = [];
    if (box.backendsHeight > 0) {
      left.push(
        h(
          Box,
          { key: 'b' },
          pane(
            'Backends',
            state.focus === 'backends',
            box.backendsHeight,
            list(state.aliases, state.aliasIndex, state.focus === 'backends', innerLeft),
            box.leftWidth,
          ),
        ),
      );
    }
    const queueTexts = state.queues.map((q) =>
      queueLine(q, state.telemetry?.queues[q]?.counts, innerLeft - 2),
    );
    left.push(
      h(
        Box,
        { key: 'q' },
        pane(
          'Queues ready▸run',
          state.focus === 'queues',
          box.topHeight - box.backendsHeight,
          list(queueTexts, state.queueIndex, state.focus === 'queues', innerLeft),
          box.leftWidth,
        ),
      ),
    );

    // Task table: tabs, header, a window of rows around the cursor, a footer.
    const tableWidth = Math.max(10, columns - box.leftWidth - 4); // borders and padding
    const visible = Math.max(1, box.topHeight - 6);
    const offset = scrollOffset(state.taskIndex, tableOffset.current, visible, state.tasks.length);
    tableOffset.current = offset;
    // One Text with nested Texts, so a narrow terminal truncates the tab row instead of widening it.
    const tabs = h(
      Text,
      { key: 'tabs', wrap: 'truncate' },
      ...INSPECTOR_TABS.map((tab, i) =>
        h(
          Text,
          { key: tab.segment, inverse: i === state.tabIndex, bold: i === state.tabIndex },
          tabLabel(i, tab.segment, counts),
        ),
      ).flatMap((label, i) => (i === 0 ? [label] : [h(Text, { key: `gap${i}` }, '  '), label])),
    );
    const columnsFitted = fitColumns(segment, tableWidth, {
      records: state.tasks.slice(offset, offset + visible),
      now: state.now,
    });
    const tableBody: ReactNode[] = [
      tabs,
      line('head', tableHeader(columnsFitted), { bold: true, underline: true }),
    ];
    const tabTitle = INSPECTOR_TABS[state.tabIndex].title;
    if (!state.tasksLoaded) {
      tableBody.push(line('empty', 'loading…', { dimColor: true }));
    } else if (state.tasks.length === 0) {
      tableBody.push(
        line('empty', `no ${tabTitle.toLowerCase()} tasks in "${queue}"`, { dimColor: true }),
      );
    }
    state.tasks.slice(offset, offset + visible).forEach((task: TaskRecord, i: number) => {
      const index = offset + i;
      const selected = index === state.taskIndex;
      tableBody.push(
        line(task.id, tableRow(columnsFitted, task, state.now), {
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
        h(
          Box,
          { key: 'foot', flexGrow: 1, alignItems: 'flex-end' },
          line('f', `${shown}${more}`, { dimColor: true }),
        ),
      );
    }
    const table = pane(
      'Tasks',
      state.focus === 'tasks',
      box.topHeight,
      tableBody,
      columns - box.leftWidth,
    );

    const top = h(
      Box,
      { height: box.topHeight },
      h(Box, { flexDirection: 'column', width: box.leftWidth, flexShrink: 0 }, ...left),
      table,
    );

    let detail: ReactElement | null = null;
    if (state.detail !== null) {
      const lines = detailLines(state.detail, state.now);
      const height = Math.max(1, box.detailHeight - 3);
      const from = Math.min(state.detailScroll, Math.max(0, lines.length - height));
      const title =
        `Task ${state.detail.id}` +
        (state.detailNote === null ? '' : `  (${state.detailNote})`) +
        (lines.length > height
          ? `  lines ${from + 1}-${Math.min(from + height, lines.length)} of ${lines.length}`
          : '');
      detail = pane(
        title,
        state.focus === 'detail',
        box.detailHeight,
        lines.slice(from, from + height).map((l, i) => line(i, l.text, toneProps[l.tone])),
      );
    }

    return h(
      Box,
      { flexDirection: 'column', width: columns, height: Math.max(1, rows - 1) },
      header,
      status,
      top,
      detail,
      h(Box, { height: 1 }, line('k', KEY_HELP, { dimColor: true })),
    );
  }

  return h(Screen);
}

import { Logger } from '@nestjs/common';
import type { ReactElement } from 'react';

import { type InkRuntime, loadInkRuntime } from './ink.loader';
import { InspectorElements } from './inspector-elements';
import { useStoreKeys, useTerminalSize } from './inspector-hooks';
import { layout } from './inspector-layout';
import { renderDetailPane } from './inspector-detail-pane';
import { renderSidebar } from './inspector-sidebar';
import type { InspectorStoreOptions } from './inspector-state';
import { errorRows, renderKeyHelp, renderStatus, renderTitle } from './inspector-status-lines';
import { renderScheduleTable } from './inspector-schedule-table';
import { renderTaskTable } from './inspector-task-table';
import { InspectorStore } from './inspector.store';

/**
 * The inspector's terminal loop: renders an InspectorStore with Ink until `q`.
 * Written with `createElement` calls rather than JSX so that the shared
 * tsconfig needs no JSX setting, and with React and Ink passed in (an
 * InkRuntime) because they are loaded at run time (see ink.loader.ts). Each
 * region of the screen is drawn by its own file (inspector-status-lines.ts,
 * inspector-sidebar.ts, inspector-task-table.ts or inspector-schedule-table.ts,
 * inspector-detail-pane.ts).
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

/**
 * The inspector's React element for `store`, drawn with `runtime`'s Ink.
 * The component tests render this with ink-testing-library.
 */
export function renderInspector(runtime: InkRuntime, store: InspectorStore): ReactElement {
  const React = runtime.react;
  const ui = new InspectorElements(runtime);

  function Screen(): ReactElement {
    const state = React.useSyncExternalStore(store.subscribe, store.getState);
    const { columns, rows } = useTerminalSize(runtime);
    useStoreKeys(runtime, store);
    const tableScroll = React.useRef(0);

    const errors = errorRows(state, columns);
    const box = layout(state, columns, rows, Math.max(1, errors.length));
    return ui.h(
      ui.Box,
      { flexDirection: 'column', width: columns, height: Math.max(1, rows - 1) },
      renderTitle(ui, state),
      renderStatus(ui, state, errors),
      ui.h(
        ui.Box,
        { height: box.topHeight },
        renderSidebar(ui, state, box),
        state.view === 'schedules'
          ? renderScheduleTable(ui, state, box, tableScroll)
          : renderTaskTable(ui, state, box, tableScroll),
      ),
      renderDetailPane(ui, state, box),
      renderKeyHelp(ui),
    );
  }

  return ui.h(Screen);
}

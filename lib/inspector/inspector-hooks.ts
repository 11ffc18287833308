import type { InkRuntime } from './ink.loader';
import type { InspectorStore } from './inspector.store';

/**
 * The React hooks of the inspector's screen: the terminal's size, and the
 * key presses it forwards to the store.
 *
 * @internal
 */

export interface TerminalSize {
  readonly columns: number;
  readonly rows: number;
}

/** Used when the output is not a terminal (tests), where Ink reports no size. */
const FALLBACK_COLUMNS = 100;
const FALLBACK_ROWS = 24;

/** The terminal's size, updated as it is resized. */
export function useTerminalSize({ ink, react: React }: InkRuntime): TerminalSize {
  const { stdout } = ink.useStdout();
  const size = (): TerminalSize => ({
    columns: stdout.columns || FALLBACK_COLUMNS,
    rows: stdout.rows || FALLBACK_ROWS,
  });
  const [current, setSize] = React.useState(size);
  // Column widths are computed from it, so a resize must re-render, not only re-layout.
  React.useEffect(() => {
    const onResize = (): void => setSize(size());
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout]);
  return current;
}

/** Forwards every key press to `store`, and ends the app when it says to quit. */
export function useStoreKeys({ ink }: InkRuntime, store: InspectorStore): void {
  const { exit } = ink.useApp();
  ink.useInput((input, key) => {
    if (store.press({ ...key, input }) === 'quit') exit();
  });
}

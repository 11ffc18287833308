/**
 * What each key does in the inspector, as data: a key press becomes the
 * commands an InspectorStore carries out, so the key map reads in one place.
 *
 * @internal
 */

/** A key press, as Ink's `useInput` reports it (only the fields the inspector uses). */
export interface InspectorKey {
  readonly input: string;
  readonly upArrow?: boolean;
  readonly downArrow?: boolean;
  readonly leftArrow?: boolean;
  readonly rightArrow?: boolean;
  readonly pageUp?: boolean;
  readonly pageDown?: boolean;
  readonly return?: boolean;
  readonly escape?: boolean;
  readonly tab?: boolean;
  readonly shift?: boolean;
  readonly ctrl?: boolean;
}

export type InspectorAction = 'quit' | 'none';

/** One thing a key asks of the store. */
export type InspectorCommand =
  | { readonly kind: 'quit' }
  | { readonly kind: 'cycleFocus'; readonly step: 1 | -1 }
  | { readonly kind: 'refresh' }
  | { readonly kind: 'selectTab'; readonly tabIndex: number }
  /** The tab left (-1) or right (1) of the selected one, wrapping around. */
  | { readonly kind: 'stepTab'; readonly step: 1 | -1 }
  | { readonly kind: 'move'; readonly step: number }
  | { readonly kind: 'enter' }
  | { readonly kind: 'closeDetail' }
  /** Between the task list and the Schedules view. */
  | { readonly kind: 'toggleSchedules' };

/** Rows Page Up and Page Down move by. */
const PAGE_STEP = 10;

/** The commands of one key press, in order; none for a key the inspector does not use. */
export function keyCommands(key: InspectorKey): InspectorCommand[] {
  const { input } = key;
  // Keys typed (or auto-repeated) faster than the terminal is read arrive
  // as one chunk, e.g. "jjj": each character is a press of its own.
  if (input.length > 1 && [...input].every((char) => char >= ' ')) {
    return [...input].flatMap((char) => commandsOf({ input: char }));
  }
  return commandsOf(key);
}

function commandsOf(key: InspectorKey): InspectorCommand[] {
  const command = singleKeyCommand(key);
  return command === undefined ? [] : [command];
}

function singleKeyCommand(key: InspectorKey): InspectorCommand | undefined {
  const { input } = key;
  if (input === 'q' && !key.ctrl) return { kind: 'quit' };
  if (key.tab) return { kind: 'cycleFocus', step: key.shift ? -1 : 1 };
  if (input === 'r') return { kind: 'refresh' };
  if (input === 's') return { kind: 'toggleSchedules' };
  if (/^[1-6]$/.test(input)) return { kind: 'selectTab', tabIndex: Number(input) - 1 };
  if (key.leftArrow) return { kind: 'stepTab', step: -1 };
  if (key.rightArrow) return { kind: 'stepTab', step: 1 };
  if (key.upArrow || input === 'k') return { kind: 'move', step: -1 };
  if (key.downArrow || input === 'j') return { kind: 'move', step: 1 };
  if (key.pageUp) return { kind: 'move', step: -PAGE_STEP };
  if (key.pageDown) return { kind: 'move', step: PAGE_STEP };
  if (key.return) return { kind: 'enter' };
  if (key.escape) return { kind: 'closeDetail' };
  return undefined;
}

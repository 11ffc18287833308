import type { TextProps } from 'ink' with { 'resolution-mode': 'import' };
import type { ReactElement, ReactNode } from 'react';

import type { InkRuntime } from './ink.loader';
import { fit } from './inspector.view';

/**
 * The Ink building blocks every region of the inspector's screen is drawn
 * with: a bordered pane, a one-line text, a selectable list. They take Ink
 * and React from an InkRuntime, loaded at run time (see ink.loader.ts).
 *
 * @internal
 */

/** The focused pane and the selection outside it. */
export const ACCENT = 'cyan';
export const MUTED = 'gray';
export const ALERT = 'red';

export class InspectorElements {
  readonly h: InkRuntime['react']['createElement'];
  readonly Box: InkRuntime['ink']['Box'];
  readonly Text: InkRuntime['ink']['Text'];

  constructor({ react, ink }: InkRuntime) {
    this.h = react.createElement;
    this.Box = ink.Box;
    this.Text = ink.Text;
  }

  /** A bordered pane with a title; without `width` it takes the room left in its row. */
  pane(
    title: string,
    focused: boolean,
    height: number,
    body: ReactNode[],
    width?: number,
  ): ReactElement {
    const { h, Box, Text } = this;
    return h(
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
  }

  /** One line of text, cut at the pane's edge rather than wrapped. */
  line(key: string | number, text: string, props: TextProps = {}): ReactElement {
    return this.h(this.Text, { key, wrap: 'truncate', ...props }, text);
  }

  /** `items` as lines, the `selected` one marked (and highlighted while `focused`). */
  list(items: readonly string[], selected: number, focused: boolean, width: number): ReactNode[] {
    return items.map((text, i) =>
      this.line(i, fit(`${i === selected ? '›' : ' '} ${text}`, width), {
        inverse: i === selected && focused,
        color: i === selected && !focused ? ACCENT : undefined,
      }),
    );
  }
}

/** Text of the event stream, written once. */
import { shown } from './shown';

export const streamListenerFailed = (kind: string): string =>
  `A ${shown(kind)} listener of the event stream failed; the event still reached the other ` +
  `listeners, and what emitted it went on.`;

/** Text of the event stream, written once. */
import { shown } from './shown';

export const streamListenerFailed = (kind: string): string =>
  `A ${shown(kind)} listener of the event stream failed; the event still reached the other ` +
  `listeners, and what emitted it went on.`;

/** A `dashboardAction` event as one log line. */
export const dashboardActionLine = (event: {
  readonly who: string | undefined;
  readonly action: string;
  readonly alias: string;
  readonly target: string;
  readonly count: number;
}): string =>
  `Dashboard: ${event.who ?? 'an unidentified user'} did ${event.action} on ${event.target} ` +
  `(backend ${shown(event.alias)}): ${event.count} affected.`;

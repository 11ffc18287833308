/** Text of the event stream, written once. */

export const streamListenerFailed = (kind: string): string =>
  `A "${kind}" listener of the event stream failed; the event still reached the other ` +
  `listeners, and what emitted it went on.`;

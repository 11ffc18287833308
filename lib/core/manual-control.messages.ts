// Messages of retrying and removing finished tasks by hand (TaskControlService, the retry and remove commands).

const STATUSES = {
  retryAll: "'FAILED' | 'CANCELLED'",
  removeAll: "'FAILED' | 'CANCELLED' | 'SUCCESSFUL'",
};

export const invalidFinishedFilter = (call: 'retryAll' | 'removeAll', filter: string): string =>
  `${call} needs { queue, status: ${STATUSES[call]}, task? }, got ${filter}.`;

export const manualTarget = (command: 'retry' | 'remove'): string =>
  `${command} needs a task id, or --queue and --status (and optionally --task) naming which ` +
  `final tasks, not both.`;

export const notRetried = (id: string, outcome: 'not-final' | 'successful'): string =>
  outcome === 'successful'
    ? `Task ${id} succeeded and is not retried; enqueue a new task to run it again.`
    : `Task ${id} has not finished (waiting or running), so there is nothing to retry.`;

export const notRemoved = (id: string): string =>
  `Task ${id} has not finished (waiting or running); cancel it first, then remove it.`;

import { InvalidCommandOptionError } from '../core/errors/invalid-command-option.error';
import { manualTarget } from '../core/control.messages';
import type { FinishedTaskFilter } from '../task/task-control.service';
import type { AliasFlags } from './alias-flag';

/** The bulk options of `retry` and `remove` as commander hands them over. */
export interface FinishedFilterOptions extends AliasFlags {
  queue?: string;
  task?: string;
  status?: FinishedTaskFilter['status'];
}

/**
 * What a `retry` or `remove` command line names: one task by id, or the
 * final tasks of a queue and status (and task name); either, never both.
 *
 * @throws InvalidCommandOptionError when it names neither or both.
 */
export function finishedTarget(
  command: 'retry' | 'remove',
  id: string | undefined,
  options: FinishedFilterOptions,
): { id: string } | { filter: FinishedTaskFilter } {
  const bulk = options.queue !== undefined || options.status !== undefined;
  if (id !== undefined && !bulk && options.task === undefined) return { id };
  if (id === undefined && options.queue !== undefined && options.status !== undefined) {
    const { queue, status, task } = options;
    return { filter: task === undefined ? { queue, status } : { queue, status, task } };
  }
  throw new InvalidCommandOptionError(manualTarget(command));
}

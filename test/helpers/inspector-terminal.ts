import { randomUUID } from 'node:crypto';
import { join } from 'node:path';

import type { TaskRecord } from '../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../lib/core/task-result-status.enum';

// What the inspector's e2e files share: the sample app's CLI run from source
// in a tmux terminal, and the tasks they show it.

/** The repository, where the terminal's shell starts. */
export const INSPECTOR_ROOT = join(__dirname, '..', '..');
export const INSPECTOR_QUEUE = 'default';

/** A READY task of `name` in the inspector's queue, with one argument. */
export function inspectorTask(
  alias: string,
  name: string,
  { priority = 0, runAfter = null }: { priority?: number; runAfter?: Date | null } = {},
): TaskRecord {
  return {
    id: randomUUID(),
    task: { name, queue: INSPECTOR_QUEUE, priority, runAfter, backend: alias },
    status: TaskResultStatus.READY,
    enqueuedAt: new Date(),
    startedAt: null,
    finishedAt: null,
    lastAttemptedAt: null,
    args: ['2026-11-29'],
    errors: [],
    workerIds: [],
  };
}

/**
 * The command line that starts the inspector with `env` (the store's
 * variables; none when the terminal already has them), then prints how it exited.
 */
export function inspectorCommand(alias: string, env: Record<string, string>): string {
  const vars = Object.entries({ ...env, THREADMILL_ALIAS: alias, THREADMILL_LOG_LEVEL: 'warn' })
    .map(([name, value]) => `${name}='${value}'`)
    .join(' ');
  const cli = 'node -r ./test/helpers/transpile-register.js sample/src/worker.ts';
  return `env ${vars} ${cli} inspector --alias ${alias}; echo "EXIT:$?"`;
}

/**
 * Whether a capture holds a whole frame, down to the panes' bottom border:
 * tmux can capture one mid-draw, before its lower rows are written.
 */
export const wholeFrame = (screen: string): boolean => screen.includes('╯');

// User-facing text about unique keys (`using({ key })`, `@Task({ unique })`).
import { TASK_ID_MAX_LENGTH } from './validate-name.util';
import { MAX_DELAY_MS } from './threadmill.constants';
import { shown } from './shown';

export const invalidUniqueKey = (taskName: string, key: unknown): string =>
  `Task ${shown(taskName)}: unique key ${shown(key)} is invalid; use 1-${TASK_ID_MAX_LENGTH} ` +
  `characters, each a letter, a digit or one of - _ . : (as a task id).`;

export const uniqueKeyNotDerived = (taskName: string, problem: string): string =>
  `Task ${shown(taskName)}: its unique.key function ${problem}, so nothing was enqueued. ` +
  `Make it return a string for every argument list, or pass the key per call with using({ key }).`;

export const invalidUniqueMode = (taskName: string, mode: unknown): string =>
  `Task ${shown(taskName)}: unique.mode ${shown(mode)} is invalid; use 'unfinished', 'window' or 'debounce'.`;

export const invalidUniqueTtl = (taskName: string, mode: string, ttlMs: unknown): string =>
  `Task ${shown(taskName)}: unique mode '${mode}' needs unique.ttlMs, a whole number of milliseconds ` +
  `from 1 to ${MAX_DELAY_MS} (got ${shown(ttlMs)}).`;

export const uniqueWithoutKey = (taskName: string): string =>
  `Task ${shown(taskName)}: unique options were given but no key. Pass one with using({ key }) ` +
  `or derive it in @Task({ unique: { key: (...args) => string } }).`;

export const debounceNotSupported = (taskName: string, alias: string): string =>
  `Task ${shown(taskName)}: unique mode 'debounce' defers the task, and backend ${shown(alias)} does not ` +
  `support deferral. Use mode 'unfinished' or 'window', or a backend that defers.`;

export const debounceWithDelay = (taskName: string): string =>
  `Task ${shown(taskName)}: unique mode 'debounce' sets when the task runs (unique.ttlMs after the ` +
  `last enqueue); drop runAfter and delayMs.`;

export const uniqueKeyHeld = (
  key: string,
  alias: string,
  holderId: string,
  windowEndsAt: Date,
): string =>
  `Unique key ${shown(key)} on backend ${shown(alias)} is held by a window until ` +
  `${windowEndsAt.toISOString()}, but its task ${holderId} is no longer stored (its result ` +
  `was trimmed), so nothing was enqueued and there is no task to return. Enqueue again after ` +
  `the window ends, or keep results at least as long as the window (retention).`;

import { InvalidTaskError } from '../core/errors/invalid-task.error';
import type { TaskBackend } from '../core/task-backend.interface';
import type {
  TaskOverrides,
  TaskUniqueOptions,
  UniqueOverrides,
} from '../core/task-options.interface';
import { MAX_DELAY_MS } from '../core/threadmill.constants';
import {
  DEFAULT_UNIQUE_MODE,
  UNIQUE_MODES,
  type TaskUniqueness,
  type UniqueMode,
} from '../core/unique-key';
import {
  debounceNotSupported,
  debounceWithDelay,
  invalidUniqueKey,
  invalidUniqueMode,
  invalidUniqueTtl,
  uniqueKeyNotDerived,
  uniqueWithoutKey,
} from '../core/unique-key.messages';
import { isValidTaskId } from '../core/validate-name.util';

/**
 * Checks a mode and ttl, from `@Task({ unique })` at bootstrap or a call's
 * `using({ unique })`, and returns the mode (the default when none is named).
 */
export function checkUniqueOptions(taskName: string, options: UniqueOverrides): UniqueMode {
  const mode = options.mode ?? DEFAULT_UNIQUE_MODE;
  if (!UNIQUE_MODES.includes(mode)) throw new InvalidTaskError(invalidUniqueMode(taskName, mode));
  const { ttlMs } = options;
  const ttlValid =
    ttlMs === undefined || (Number.isInteger(ttlMs) && ttlMs > 0 && ttlMs <= MAX_DELAY_MS);
  // Window and debounce mean nothing without their ttl; `unfinished` ignores one, if valid.
  if (!ttlValid || (mode !== 'unfinished' && ttlMs === undefined)) {
    throw new InvalidTaskError(invalidUniqueTtl(taskName, mode, ttlMs));
  }
  return mode;
}

/** Checks `@Task({ unique })` at bootstrap, so a bad one fails the app, not its first enqueue. */
export function checkTaskUnique(taskName: string, unique: TaskUniqueOptions): void {
  if (typeof unique.key !== 'function') {
    throw new InvalidTaskError(uniqueKeyNotDerived(taskName, 'is not a function'));
  }
  checkUniqueOptions(taskName, unique);
}

/**
 * The unique key, mode and ttl one enqueue of `args` stores with its task,
 * or undefined when it has no key: the call's key, else the one the task
 * derives from the arguments; the call's mode and ttl over the task's.
 */
export function uniquenessOf(
  taskName: string,
  declared: TaskUniqueOptions | undefined,
  backend: TaskBackend,
  args: readonly unknown[],
  overrides: TaskOverrides,
): TaskUniqueness | undefined {
  const key = overrides.key ?? (declared ? deriveKey(taskName, declared, args) : undefined);
  if (key === undefined) {
    if (overrides.unique !== undefined) throw new InvalidTaskError(uniqueWithoutKey(taskName));
    return undefined;
  }
  if (!isValidTaskId(key)) throw new InvalidTaskError(invalidUniqueKey(taskName, key));
  const options: UniqueOverrides = { ...declared, ...overrides.unique };
  const mode = checkUniqueOptions(taskName, options);
  if (mode === 'unfinished') return { key, mode };
  if (mode === 'debounce') {
    if (!backend.features.defer) {
      throw new InvalidTaskError(debounceNotSupported(taskName, backend.alias));
    }
    if (overrides.runAfter != null || overrides.delayMs != null) {
      throw new InvalidTaskError(debounceWithDelay(taskName));
    }
  }
  return { key, mode, ttlMs: options.ttlMs };
}

function deriveKey(
  taskName: string,
  declared: TaskUniqueOptions,
  args: readonly unknown[],
): string {
  let key: unknown;
  try {
    key = (declared.key as (...callArgs: unknown[]) => unknown)(...args);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new InvalidTaskError(uniqueKeyNotDerived(taskName, `threw (${reason})`));
  }
  if (typeof key !== 'string') {
    throw new InvalidTaskError(
      uniqueKeyNotDerived(taskName, `returned ${key === null ? 'null' : typeof key}, not a string`),
    );
  }
  return key;
}

/** When a debounced task is due: `ttlMs` from `now` (the store counts the wait on its clock); else null. */
export function debounceStart(unique: TaskUniqueness | undefined, now: Date): Date | null {
  return unique?.mode === 'debounce' ? new Date(now.getTime() + (unique.ttlMs ?? 0)) : null;
}

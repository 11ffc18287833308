/**
 * How a unique key holds off a second task with the same key.
 *
 * - `unfinished`: held while its task waits (ready or deferred) or runs.
 * - `window`: held for `ttlMs` from the enqueue that made its task, even once
 *   that task finished, and while the task is unfinished.
 * - `debounce`: the task is deferred by `ttlMs`; an enqueue while it still
 *   waits, never started, replaces its arguments and defers it `ttlMs` again.
 *
 * @publicApi
 */
export type UniqueMode = 'unfinished' | 'window' | 'debounce';

export const UNIQUE_MODES: readonly UniqueMode[] = ['unfinished', 'window', 'debounce'];

/** The mode of a key that names none. */
export const DEFAULT_UNIQUE_MODE: UniqueMode = 'unfinished';

/**
 * A task's unique key as stored with it (`TaskDescriptor.unique`).
 *
 * @publicApi
 */
export interface TaskUniqueness {
  readonly key: string;
  readonly mode: UniqueMode;
  /** The window or the debounce wait (ms); absent in `unfinished` mode. */
  readonly ttlMs?: number;
}

/**
 * Where the task that holds a key stands, as the store sees it in the step
 * that enqueues: `fresh` waits and never started; `started` waits for another
 * attempt (a retry, a released task); `running`; `final` (its result is
 * stored); `gone` (no record: trimmed, expired, or never stored).
 */
export type HolderState = 'fresh' | 'started' | 'running' | 'final' | 'gone';

/**
 * What an enqueue with a key does: `create` a task that takes the key,
 * `return` the holder, `replace` the waiting holder's arguments and due time
 * (debounce), or refuse because the window holds but its task is `gone`.
 */
export type UniqueDecision = 'create' | 'return' | 'replace' | 'gone';

/**
 * The one rule every backend applies to a keyed enqueue, inside the atomic
 * step that stores it (the Redis script states it again in Lua).
 *
 * @param mode the mode of the enqueue being decided.
 * @param holder the state of the key's current holder (`gone` when there is none).
 * @param windowHeld a window set by an earlier enqueue of the key has not ended.
 */
export function decideUnique(
  mode: UniqueMode,
  holder: HolderState,
  windowHeld: boolean,
): UniqueDecision {
  if (mode === 'debounce' && holder === 'fresh') return 'replace';
  if (windowHeld) return holder === 'gone' ? 'gone' : 'return';
  if (mode === 'debounce') return 'create';
  return holder === 'final' || holder === 'gone' ? 'create' : 'return';
}

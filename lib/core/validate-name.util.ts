/** Longest queue, task, alias, app name or Redis key prefix; keys stay short and readable. */
export const NAME_MAX_LENGTH = 200;

// Whitespace breaks CLI arguments and log lines; braces and colons would break
// the `<prefix>:{alias}:...` key layout (hash tag and separators).
const FORBIDDEN = /[\s{}:]/;

/** Whether `name` can be a queue, task, backend alias or app name, or a Redis key prefix. */
export function isValidName(name: unknown): name is string {
  return (
    typeof name === 'string' &&
    name.length > 0 &&
    name.length <= NAME_MAX_LENGTH &&
    !FORBIDDEN.test(name)
  );
}

/** Longest task id a caller may choose; a UUID is 36. */
export const TASK_ID_MAX_LENGTH = 200;

// A caller's id goes into storage keys and log lines as it is: nothing there
// needs quoting or escaping.
const TASK_ID = /^[A-Za-z0-9_.:-]+$/;

/** Whether `id` can be the id a caller gives a task (`using({ id })`). */
export function isValidTaskId(id: unknown): id is string {
  return typeof id === 'string' && id.length <= TASK_ID_MAX_LENGTH && TASK_ID.test(id);
}

/**
 * Longest schedule id: its ticks' task ids (`schedule:<id>:<epoch ms>`) must
 * stay within TASK_ID_MAX_LENGTH.
 */
export const SCHEDULE_ID_MAX_LENGTH = 150;

/** Whether `id` can be a schedule's id (the characters of a task id). */
export function isValidScheduleId(id: unknown): id is string {
  return typeof id === 'string' && id.length <= SCHEDULE_ID_MAX_LENGTH && TASK_ID.test(id);
}

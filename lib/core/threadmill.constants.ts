/** Alias used when a task or an injection names no backend. */
export const DEFAULT_BACKEND_ALIAS = 'default';

/** Queue used when a task names none. */
export const DEFAULT_QUEUE = 'default';

/** Lowest and highest task priority; higher runs first. */
export const PRIORITY_MIN = -100;
export const PRIORITY_MAX = 100;

/** Prefix of every metadata key and DI token, so ours never collide with an app's. */
export const THREADMILL_NAMESPACE = 'threadmill';

/** Metadata key written by `@Task()` and read only by the metadata accessor. */
export const TASK_METADATA = `${THREADMILL_NAMESPACE}:task`;

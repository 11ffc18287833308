/** Alias used when a task or an injection names no backend. */
export const DEFAULT_BACKEND_ALIAS = 'default';

/**
 * App name when ThreadmillModule's `app` option is not set, and the app a
 * schedule stored before apps were recorded belongs to: a single app keeps
 * owning the declared schedules it stored.
 */
export const DEFAULT_APP_NAME = 'default';

/** Queue used when a task names none. */
export const DEFAULT_QUEUE = 'default';

/** Lowest and highest task priority; higher runs first. */
export const PRIORITY_MIN = -100;
export const PRIORITY_MAX = 100;

/** Largest serialized `args` (bytes of JSON, UTF-8) enqueue accepts unless the backend sets its own limit: 1 MiB. */
export const DEFAULT_MAX_PAYLOAD_BYTES = 1024 * 1024;

/**
 * Deepest nesting of arrays and objects a task's args, return value or
 * progress may have, the args list itself counting as the first level. JSON
 * of real apps stays far below it; far above it, walking or stringifying the
 * value overflows the call stack, and Redis's Lua JSON stops at 1000.
 */
export const MAX_JSON_DEPTH = 100;

/** Prefix of every metadata key and DI token, so ours never collide with an app's. */
export const THREADMILL_NAMESPACE = 'threadmill';

/** Metadata key written by `@Task()` and read only by the metadata accessor. */
export const TASK_METADATA = `${THREADMILL_NAMESPACE}:task`;

/** Longest `delayMs` an enqueue accepts (1 year): beyond it a scheduler, not a deferred task, is the tool. */
export const MAX_DELAY_MS = 365 * 24 * 3600 * 1000;

/** Metadata key written by `@OnTaskEvent()` and read only by its explorer. */
export const TASK_EVENT_LISTENER_METADATA = `${THREADMILL_NAMESPACE}:task-event-listener`;

/**
 * DI token `runThreadmillCli` provides (globally, `true`) in the app it boots:
 * a command runs there, so the in-process worker, which the same module may
 * turn on for the web app, does not start.
 */
export const THREADMILL_CLI_CONTEXT = `${THREADMILL_NAMESPACE}:cli-context`;

/**
 * Set in the environment of every child a worker pool forks. The child runs
 * the same CLI entry with the same arguments (so it boots the same app and
 * parses the same options); this marker makes its `worker` command run the
 * slots instead of another pool, and keeps what only the pool's main process
 * does (the in-process worker, `@OnTaskEvent` listeners) from starting there.
 */
export const WORKER_CHILD_ENV = 'THREADMILL_WORKER_CHILD';

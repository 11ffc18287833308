/**
 * Every user-facing sentence, written once. Each names what is at fault and
 * what to do about it.
 */
import type { TaskRecord } from './task-record.interface';
import { NAME_MAX_LENGTH, TASK_ID_MAX_LENGTH } from './validate-name.util';
import { shown, shownList } from './shown';

export const taskNotSuccessful = (record: Pick<TaskRecord, 'id' | 'task' | 'status'>): string =>
  `Task ${shown(record.task.name)} (${record.id}) has no return value: its status is ${record.status}. ` +
  `Check status (or await it with refresh()) before reading returnValue.`;

export const taskResultDoesNotExist = (id: string, alias: string): string =>
  `No task result with id ${shown(id)} exists on backend ${shown(alias)}: it was never enqueued there or it expired after resultTtl.`;

export const notJsonSafe = (taskName: string, path: string, reason: string): string =>
  `Task ${shown(taskName)}: ${path} ${reason}, so it would not survive a JSON round trip unchanged. ` +
  `Pass only JSON values (null, booleans, finite numbers, strings, arrays and plain objects).`;

export const nestedTooDeep = (taskName: string, what: string, maxDepth: number): string =>
  `Task ${shown(taskName)}: the arrays and objects of its ${what} are nested more than ${maxDepth} levels deep. ` +
  `Flatten the data, or pass a reference to it (an id, a URL) instead.`;

export const invalidPriority = (
  taskName: string,
  priority: unknown,
  min: number,
  max: number,
): string =>
  `Task ${shown(taskName)}: priority ${String(priority)} is invalid; use a whole number from ${min} to ${max}.`;

export const queueNotConfigured = (
  taskName: string,
  queue: string,
  alias: string,
  queues: readonly string[],
): string =>
  `Task ${shown(taskName)}: queue ${shown(queue)} is not configured for backend ${shown(alias)} ` +
  `(configured: ${shownList(queues)}). Add it to the backend's queues or pick one of those.`;

export const deferNotSupported = (
  taskName: string,
  alias: string,
  option: 'runAfter' | 'delayMs' = 'runAfter',
): string =>
  `Task ${shown(taskName)}: backend ${shown(alias)} does not support ${option}. Enqueue without ${option} or use a backend that defers.`;

export const invalidBlockingMs = (taskName: string, value: unknown): string =>
  `Task ${shown(taskName)}: blockingMs must be a whole number of milliseconds above 0 (got ${String(value)}).`;

export const invalidRetryPolicy = (taskName: string, problem: string): string =>
  `Task ${shown(taskName)}: ${problem}. See docs/retries.md.`;

export const workerLost = (id: string, taskName: string, poolId: string): string =>
  `Task ${shown(taskName)} (${id}) was leased to worker pool ${shown(poolId)}, whose heartbeat lapsed ` +
  `(the pool was killed, froze or lost its store for longer than its heartbeat tolerance); ` +
  `another pool recovered it. It may have run, in part or to the end: the lapsed pool ` +
  `could not say.`;

export const invalidDelay = (taskName: string, value: unknown, maxMs: number): string =>
  `Task ${shown(taskName)}: delayMs ${shown(value)} is invalid; use a whole number of milliseconds from 0 to ${maxMs}.`;

export const delayWithRunAfter = (taskName: string): string =>
  `Task ${shown(taskName)}: set delayMs or runAfter, not both (delayMs is runAfter counted from now).`;

export const invalidRunAfter = (taskName: string, value: unknown): string =>
  `Task ${shown(taskName)}: runAfter ${String(value)} is not a valid Date. Pass a Date with a valid time.`;

export const backendNotConfigured = (
  taskName: string,
  alias: string,
  aliases: readonly string[],
): string =>
  `Task ${shown(taskName)}: backend ${shown(alias)} is not configured (configured: ${shownList(aliases)}). Add it to ThreadmillModule.forRoot({ backends }) or pick one of those.`;

export const invalidName = (kind: 'queue' | 'task' | 'backend alias', name: string): string =>
  `The ${kind} name ${shown(name)} is invalid: use 1-200 characters without whitespace, "{", "}" or ":" ` +
  `(they would break the storage key layout).`;

export const duplicateTask = (name: string, first: string, second: string): string =>
  `Two tasks are named ${shown(name)}: ${first} and ${second}. Give one of them another name with @Task({ name }).`;

export const taskNameNotRegistered = (name: string, names: readonly string[]): string =>
  `No @Task named ${shown(name)} is registered in this application (registered: ${
    names.length === 0 ? 'none' : shownList(names)
  }). Check the name, or that its provider is part of the application.`;

export const unknownTask = (name: string): string =>
  `No @Task named ${shown(name)} is registered in this application, so it was not run. ` +
  `Deploy the code that declares it, or remove the stored task.`;

export const invalidBackendOption = (alias: string, option: string, problem: string): string =>
  `Threadmill backend ${shown(alias)}: option ${shown(option)} ${problem}.`;

export const acknowledgementTimeout = (id: string, leaseTtlMs: number): string =>
  `Task ${id} was not acknowledged within leaseTtl (${leaseTtlMs} ms): its worker hung or died. ` +
  `Raise leaseTtl above the task's worst-case run time if it was merely slow.`;

export const payloadTooLarge = (
  taskName: string,
  bytes: number,
  limit: number,
  alias: string,
): string =>
  `Task ${shown(taskName)}: its arguments are ${bytes} bytes of JSON, over the limit of ${limit} bytes ` +
  `of backend ${shown(alias)}, so nothing was enqueued. Pass a reference (an id, a URL) instead of the data, ` +
  `or raise maxPayloadBytes.`;

export const storedDataTooLarge = (bytes: number, limit: number): string =>
  `its data is ${bytes} bytes, over the ${limit} bytes a task of this backend may hold`;

export const corruptTaskData = (id: string, reason: string): string =>
  `The stored data of task ${id} cannot be read (${reason}); the task was failed instead of run.`;

export const maintenanceNeverRan = (alias: string): string =>
  `Backend ${shown(alias)}: no maintenance heartbeat was ever written. Start a worker pool (threadmill worker) for this backend.`;

export const maintenanceStale = (alias: string, ageMs: number, maxAgeMs: number): string =>
  `Backend ${shown(alias)}: the last maintenance pass is ${ageMs} ms old (limit ${maxAgeMs} ms). ` +
  `The worker pool is down or stalled.`;

export const backendUnreachable = (alias: string, reason: string): string =>
  `Backend ${shown(alias)} did not answer: ${reason}`;

export const outboxStalled = (alias: string, oldestAgeMs: number, limitMs: number): string =>
  `Backend ${shown(alias)}: the oldest task in its outbox has waited ${oldestAgeMs} ms, above ` +
  `the limit of ${limitMs} ms, so no relay is moving it to the store: check that a process ` +
  `with the outbox and its relay on runs, and that it reaches both the app's Postgres and the store.`;

export const outboxParked = (alias: string, parked: number): string =>
  `Backend ${shown(alias)}: its relay set ${parked} task(s) of its outbox aside, which it can ` +
  `never move as written (their queue is not on the alias, or their request cannot be read): ` +
  `their rows keep the reason in \`parked\`; fix it and clear \`parked\`, or delete the rows.`;

export const thresholdCrossed = (
  queue: string,
  threshold: string,
  value: number,
  limit: number,
): string => `Queue ${shown(queue)}: ${threshold} is ${value}, above the limit of ${limit}.`;

export const optionalDependencyMissing = (feature: string, packages: string): string =>
  `${feature} needs ${packages}; install it with \`npm install ${packages}\`.`;

export const notATask = (place: string): string =>
  `${place} is not a registered @Task method. Decorate it with @Task() and make sure its class ` +
  `is a provider of a module in this application.`;

export const taskProviderNotStatic = (provider: string, method: string, scope: string): string =>
  `${provider}.${method} is a @Task on a ${scope} provider, which a worker cannot construct ` +
  `without a request. Move the task to a singleton provider (the default scope).`;

export const takesContextMismatch = (place: string, declared: boolean): string =>
  declared
    ? `Task ${place} declares takesContext: true but its first parameter is not a TaskContext. ` +
      `Make the first parameter "context: TaskContext" or drop takesContext.`
    : `Task ${place} has a TaskContext as its first parameter but declares takesContext: false. ` +
      `Remove takesContext: false (it is detected) or drop the parameter.`;

export const unknownBackend = (alias: string, aliases: readonly string[]): string =>
  `No Threadmill backend ${shown(alias)} is configured (configured: ${shownList(aliases)}). Add it to ThreadmillModule.forRoot({ backends }) or use one of those.`;

export const backendAliasNotProvided = (alias: string): string =>
  `Threadmill backend ${shown(alias)} is listed in forRootAsync({ backendAliases }) (which defaults to ` +
  `["default"]) but useFactory returned no config for it. Add it to the returned backends or ` +
  `list only the aliases the factory configures.`;

export const noBackendsConfigured = (): string =>
  `ThreadmillModule has no backends: pass { backends: { default: { backend: RedisBackend, url } } }.`;

export const invalidAppName = (app: unknown): string =>
  `ThreadmillModule option "app" ${shown(app)} is invalid: use 1-${NAME_MAX_LENGTH} characters without ` +
  `whitespace, "{", "}" or ":" (it is stored with each schedule), or leave it out for "default".`;

export const backendClosed = (alias: string): string =>
  `Threadmill backend ${shown(alias)} is closed (the application shut down); it accepts no more calls.`;

export const immediateWithoutExecutor = (alias: string): string =>
  `Threadmill backend ${shown(alias)} runs tasks at enqueue (immediate: true) but has no executor: ` +
  `it must be configured through ThreadmillModule, which attaches one at init.`;

export const leasesLeftToReaper = (alias: string, count: number, cause: unknown): string =>
  `Threadmill backend ${shown(alias)}: ${count} task(s) leased as a wait was aborted could not be released (${String(cause)}); they run again once their lease expires.`;

export const acknowledgeUnfinished = (id: string, status: string): string =>
  `Task ${id} cannot be acknowledged with status ${status}: only SUCCESSFUL, FAILED or CANCELLED records are stored as results.`;

export const retryNotReady = (id: string, status: string): string =>
  `Task ${id} cannot be retried with status ${status}: pass the READY record nextAttempt() returned.`;

export const sqliteDriverMissing = (alias: string): string =>
  `Threadmill backend ${shown(alias)} uses SqliteBackend, but the optional peer dependency better-sqlite3 is not installed. ` +
  `Run \`npm install better-sqlite3@12\` (version 12: 13 needs Node 22), or configure this alias with another backend.`;

export const sqliteUnavailable = (alias: string, filename: string, reason: string): string =>
  `Threadmill backend ${shown(alias)} cannot use the SQLite database ${filename} (${reason}). ` +
  `Check that its folder is writable and that no other program holds a lock on it for long.`;

export const inspectorRetrying = (intervalMs: number): string =>
  `Retrying every ${intervalMs / 1000} s (q quits).`;

export const inspectorTaskGone = (id: string): string =>
  `task ${id} no longer exists: its result expired; showing the last copy read`;

export const taskAlreadyExists = (id: string, alias: string, status: string): string =>
  `A task with id ${shown(id)} is already stored on backend ${shown(alias)} (${status}), so nothing was enqueued. ` +
  `The error's \`existing\` holds that task; enqueue a new task without an id, or with another one.`;

export const duplicateIdInCall = (id: string): string =>
  `The id ${shown(id)} appears twice in one enqueueMany call, so nothing was enqueued. Give each task its own id.`;

export const invalidTaskId = (taskName: string, id: unknown): string =>
  `Task ${shown(taskName)}: id ${JSON.stringify(id) ?? String(id)} is invalid; use 1-${TASK_ID_MAX_LENGTH} ` +
  `characters, each a letter, a digit or one of - _ . : (a UUID fits).`;

export const idNeedsOneTask = (taskName: string, count: number): string =>
  `Task ${shown(taskName)}: an id names one task, but this call enqueues ${count}. ` +
  `Enqueue them one at a time, each with its own id.`;

export const storeFull = (alias: string, target: string, what: string, reply: string): string =>
  `Threadmill backend ${shown(alias)}: Redis at ${target} is full and refused ${what} ` +
  `(${reply.replace(/\.+$/, '')}), so nothing of it was stored. Retry once memory is freed: ` +
  `raise maxmemory, or keep less (a shorter resultTtl, fewer waiting tasks).`;

export const backendCommandRefused = (alias: string, what: string, reply: string): string =>
  `Threadmill backend ${shown(alias)}: Redis refused ${what}: ${reply.replace(/\.+$/, '')}.`;

export const enqueueOutcomeUnknown = (
  alias: string,
  ids: readonly string[],
  reason: string,
): string =>
  `Threadmill backend ${shown(alias)}: the reply to an enqueue of ${ids.length} task(s) ` +
  `(${ids.length === 1 ? ids[0] : `${ids[0]}, ...`}) was lost (${reason.replace(/\.+$/, '')}), ` +
  `so they may or may not be stored (all or none). Look one up with getResult before enqueuing ` +
  `again, or enqueue again with the same id (using({ id })), which is refused if it is stored.`;

export const redisTooOld = (alias: string, target: string, version: string): string =>
  `Threadmill backend ${shown(alias)} needs Redis 7.0 or later, and ${target} is Redis ${version}: ` +
  `its scripts declare flags (a #!lua line) so that a full Redis refuses a write whole, ` +
  `instead of running part of it and losing task data. Upgrade Redis.`;

export const evictionRefused = (alias: string, target: string, policy: string): string =>
  `Threadmill backend ${shown(alias)} will not use Redis at ${target}: its maxmemory-policy is ` +
  `${policy}, so when memory runs out Redis deletes keys, and with them waiting tasks and ` +
  `stored results, without a trace. Set maxmemory-policy noeviction (a full Redis then refuses ` +
  `writes, which Threadmill reports as StoreFullError), or accept the loss with allowEviction: true.`;

export const evictionAllowed = (alias: string, target: string, policy: string): string =>
  `Threadmill backend ${shown(alias)}: Redis at ${target} has maxmemory-policy ${policy} and ` +
  `allowEviction is set: when memory runs out, tasks and results may vanish without a trace.`;

export const redisUnavailable = (alias: string, target: string, reason: string): string =>
  // Redis's own replies end with a period ("... or user is disabled.").
  `Threadmill backend ${shown(alias)} cannot use Redis at ${target}: ${reason.replace(/\.+$/, '')}. ` +
  `Check that Redis runs and that the URL, credentials and network are right.`;

export const redisLocalFallback = (alias: string, target: string): string =>
  `Threadmill backend ${shown(alias)} uses Redis at ${target}: none of REDIS_URL, ` +
  `REDIS_CLUSTER_NODES or REDIS_SENTINELS is set. Set one of them to use another Redis.`;

export const inspectorNeedsTerminal = (): string =>
  `The inspector is interactive: run it in a terminal (its input is not a TTY, so it cannot read keys).`;

export const poolHeartbeatLapsed = (
  alias: string,
  poolId: string,
  lapsedMs: number | null,
): string =>
  `Threadmill backend ${shown(alias)}: worker pool ${shown(poolId)} leases nothing: its heartbeat in the ` +
  (lapsedMs === null ? 'store is missing' : `store lapsed ${lapsedMs} ms ago`) +
  ` (by the store's clock), so other pools may be recovering its tasks as lost. It leases again ` +
  `once the pool beats, which it does every maintenance pass while the store answers.`;

export const poolHeartbeatResumed = (alias: string, poolId: string): string =>
  `Threadmill backend ${shown(alias)}: worker pool ${shown(poolId)} beats again and leases tasks again.`;

export const taskWaitTimedOut = (record: TaskRecord, alias: string, timeoutMs: number): string =>
  `Task ${shown(record.task.name)} (${record.id}) on backend ${shown(alias)} was still ${record.status} after ` +
  `${timeoutMs} ms of waiting. Wait longer (timeoutMs, or --timeout on the CLI), or check that a ` +
  `worker pool serves queue ${shown(record.task.queue)} and that the queue is not paused.`;

export const notHeardAcrossProcesses = (event: string, heard: readonly string[]): string =>
  `Task event ${shown(event)} is not one the backends carry between processes; those are ` +
  `${shownList(heard)}: listen to one of those, or drop allProcesses.`;

export const partialEnqueue = (
  alias: string,
  task: string,
  stored: number,
  total: number,
  reason: string,
): string =>
  `Threadmill backend ${shown(alias)}: of ${total} ${shown(task)} tasks, the first ${stored} were stored and the ` +
  `rest were not (${reason.replace(/\.+$/, '')}). A bulk this large is stored in slices, each all or ` +
  `none; enqueue the argument lists from index ${stored} on again once the cause is fixed.`;

export const resultCannotWait = (id: string): string =>
  `The result of task ${id} was built without its backend, so it cannot wait: read it with ` +
  `TaskService.getResult or waitForResult, whose results can.`;

export const allProcessesNeedsModule = (): string =>
  `TaskEvents built by hand hears this process only: take it from ThreadmillModule (inject ` +
  `TaskEvents) to hear events from every process.`;

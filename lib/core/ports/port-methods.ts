import type { TaskBackend } from '../task-backend.interface';

/** The parts a backend provides, by the name it exposes each under. */
export type BackendPartName =
  'tasks' | 'leases' | 'control' | 'reads' | 'feeds' | 'pools' | 'schedules' | 'maintenance';

type MethodsOf<T> = {
  [K in keyof T]-?: T[K] extends (...args: never[]) => unknown ? K : never;
}[keyof T];

/** Every method of each part, in the order docs/architecture.md lists them. */
export type PortMethods = { readonly [P in BackendPartName]: readonly MethodsOf<TaskBackend[P]>[] };

/**
 * Every method of every part, by part: what the guard in front of a backend
 * wraps, what the contract suite calls on a closed backend, what the
 * architecture page must describe. A method added to a port and not here
 * fails to compile (`AllListed`).
 */
export const PORT_METHODS = {
  tasks: ['enqueue', 'enqueueMany', 'getResult'],
  leases: [
    'acquire',
    'acknowledge',
    'acknowledgeAndAcquire',
    'retry',
    'release',
    'unlease',
    'storeProgress',
  ],
  control: [
    'cancel',
    'retryFinished',
    'removeFinished',
    'cancelRequests',
    'dropCancelRequests',
    'pauseQueue',
    'resumeQueue',
    'pausedQueues',
    'setQueueLimits',
    'queueLimits',
  ],
  reads: ['peek', 'listTasks', 'telemetry', 'activity', 'maintenanceHeartbeat'],
  feeds: ['subscribeFinished', 'subscribeLive'],
  pools: ['beat', 'retire', 'list', 'claimRole'],
  schedules: [
    'scheduleClock',
    'putSchedule',
    'removeSchedule',
    'getSchedule',
    'listSchedules',
    'dueSchedules',
    'advanceSchedule',
  ],
  maintenance: [
    'promoteDue',
    'endExpiredLeases',
    'lapsedPools',
    'endPoolAttempts',
    'trimFinished',
    'trimCounts',
    'forgetFreeKeys',
    'markPass',
  ],
} as const satisfies PortMethods;

/**
 * The methods a backend may leave out, by part: the guard wraps them where
 * a backend has them, and the architecture page describes them too.
 */
export const OPTIONAL_PORT_METHODS: {
  readonly [P in BackendPartName]?: readonly (keyof TaskBackend[P])[];
} = {
  tasks: ['enqueueInTransaction', 'awaitMoved'],
  reads: ['outboxBacklog'],
  pools: ['endSessionsOf'],
  maintenance: ['trimAll'],
};

type Unlisted = {
  [P in BackendPartName]: Exclude<MethodsOf<TaskBackend[P]>, (typeof PORT_METHODS)[P][number]>;
}[BackendPartName];

/** Compiles only while every method of every part is listed in PORT_METHODS. */
export const AllListed: [Unlisted] extends [never] ? true : Unlisted = true;

/**
 * The sequential model of one queue's task states that the interleaving
 * contract checks a backend against. An operation is a list of steps, each
 * one store call applied at once: a call the store makes atomically is one
 * step; a control that reads the task and then stores against what it read
 * (retry, remove) is two. The contract runs the calls of several callers
 * one at a time in a random order and replays that very order here: each
 * operation must end with the outcome the store gave, and the store must
 * hold the states the model reaches.
 */

export type ModelStatus = 'READY' | 'RUNNING' | 'SUCCESSFUL' | 'FAILED' | 'CANCELLED' | 'GONE';

export interface ModelTask {
  readonly status: ModelStatus;
  /** Attempts started: the store's `workerIds` count them. */
  readonly attempts: number;
  /** Changes made to this task so far: a control stores only against the version it read. */
  readonly version: number;
  /** The caller whose pool holds its lease, while RUNNING. */
  readonly pool?: number;
  /** A cancel was asked of it while it was leased (cancelRequestedAt). */
  readonly marked?: boolean;
  /** Its unique key (mode `unfinished`), when it was enqueued with one. */
  readonly key?: string;
}

export interface Model {
  readonly tasks: ReadonlyMap<string, ModelTask>;
  readonly paused: boolean;
  /** Each unique key's hold: the task that took it last. */
  readonly keys: ReadonlyMap<string, string>;
  /** The callers whose pool's heartbeat was let lapse (a maintenance pass recovers it). */
  readonly lapsed: ReadonlySet<number>;
}

/** What a step did: the model after it, what it read, and the outcome when the operation ends with it. */
interface StepResult {
  readonly model: Model;
  readonly read?: ModelTask;
  readonly outcome?: string;
}

/** One store call of an operation, by the backend method that makes it. */
export interface Step {
  readonly method: string;
  readonly apply: (model: Model, read: ModelTask | undefined) => StepResult;
}

const FINAL: ReadonlySet<ModelStatus> = new Set(['SUCCESSFUL', 'FAILED', 'CANCELLED']);
const RETRYABLE: ReadonlySet<ModelStatus> = new Set(['FAILED', 'CANCELLED']);

export const emptyModel = (): Model => ({
  tasks: new Map(),
  paused: false,
  keys: new Map(),
  lapsed: new Set(),
});

export const taskOf = (model: Model, id: string): ModelTask =>
  model.tasks.get(id) ?? { status: 'GONE', attempts: 0, version: 0 };

function withTask(model: Model, id: string, change: Partial<ModelTask>): Model {
  const now = taskOf(model, id);
  const tasks = new Map(model.tasks);
  tasks.set(id, { ...now, ...change, version: now.version + 1 });
  return { ...model, tasks };
}

/** A step that ends the operation, deciding from the model as it stands. */
const ending = (
  method: string,
  decide: (model: Model) => { model?: Model; outcome: string },
): Step => ({
  method,
  apply: (model) => {
    const decided = decide(model);
    return { model: decided.model ?? model, outcome: decided.outcome };
  },
});

export const enqueued = (id: string): Step[] => [
  ending('enqueue', (model) => ({
    model: withTask(model, id, { status: 'READY' }),
    outcome: 'stored',
  })),
];

/**
 * An enqueue of `id` with unique key `key` (mode `unfinished`): the task
 * that holds the key comes back while it waits or runs; else `id` is made
 * and takes the key.
 */
export const enqueuedKeyed = (id: string, key: string): Step[] => [
  ending('enqueue', (model) => {
    const holder = model.keys.get(key);
    const held = holder === undefined ? 'GONE' : taskOf(model, holder).status;
    if (holder !== undefined && (held === 'READY' || held === 'RUNNING')) {
      return { outcome: `holder ${holder}` };
    }
    const keys = new Map(model.keys).set(key, id);
    return {
      model: { ...withTask(model, id, { status: 'READY', key }), keys },
      outcome: 'created',
    };
  }),
];

/** Caller `caller`'s pool beats (alive again) or lets its heartbeat lapse. */
const beat = (caller: number, alive: boolean): Step => ({
  method: 'beatPool',
  apply: (model) => {
    const lapsed = new Set(model.lapsed);
    if (alive) lapsed.delete(caller);
    else lapsed.add(caller);
    return { model: { ...model, lapsed } };
  },
});

/**
 * Caller `caller`'s pool beats, then acquires: it took `id` (nothing, when
 * null), 'leased' or 'none' where that could be (none while the pool is
 * lapsed: the other caller's maintenance step may lapse it in between).
 */
export const acquired = (id: string | null, caller: number): Step[] => [
  beat(caller, true),
  ending('acquire', (model) => {
    const ready = [...model.tasks.values()].some((task) => task.status === 'READY');
    const blocked = model.paused || model.lapsed.has(caller);
    if (id === null) return { outcome: blocked || !ready ? 'none' : 'missed a READY task' };
    const task = taskOf(model, id);
    if (blocked || task.status !== 'READY') return { outcome: `leased a ${task.status} task` };
    return {
      model: withTask(model, id, {
        status: 'RUNNING',
        attempts: task.attempts + 1,
        pool: caller,
      }),
      outcome: 'leased',
    };
  }),
];

/**
 * A maintenance step: caller `caller` lets its pool's heartbeat lapse, then
 * runs a maintenance pass, which ends the attempts of every lapsed pool's
 * tasks (WorkerLost: FAILED, these tasks have no retries left; CANCELLED
 * when a cancel was asked of them) and forgets those pools.
 */
export const maintained = (caller: number): Step[] => [
  beat(caller, false),
  ending('maintenancePass', (model) => {
    let next: Model = { ...model, lapsed: new Set() };
    for (const [id, task] of model.tasks) {
      if (task.status !== 'RUNNING' || task.pool === undefined || !model.lapsed.has(task.pool)) {
        continue;
      }
      next = withTask(next, id, { status: task.marked ? 'CANCELLED' : 'FAILED', pool: undefined });
    }
    return { model: next, outcome: 'done' };
  }),
];

/** The acknowledge of attempt `attempt`: stored while that attempt still runs. */
export const acknowledged = (
  id: string,
  status: 'SUCCESSFUL' | 'FAILED',
  attempt: number,
): Step[] => [
  ending('acknowledge', (model) => {
    const task = taskOf(model, id);
    if (task.status !== 'RUNNING' || task.attempts !== attempt) return { outcome: 'stale' };
    return { model: withTask(model, id, { status }), outcome: 'acknowledged' };
  }),
];

export const cancelled = (id: string): Step[] => [
  ending('cancel', (model) => {
    const task = taskOf(model, id);
    if (task.status === 'GONE') return { outcome: 'missing' };
    if (task.status === 'READY') {
      return { model: withTask(model, id, { status: 'CANCELLED' }), outcome: 'cancelled' };
    }
    if (task.status !== 'RUNNING') return { outcome: 'already-final' };
    return { model: withTask(model, id, { marked: true }), outcome: 'requested' };
  }),
];

export const paused = (pause: boolean): Step[] => [
  ending(pause ? 'pauseQueue' : 'resumeQueue', (model) => ({
    model: { ...model, paused: pause },
    outcome: 'done',
  })),
];

/** A task retried by hand takes its key back, unless another unfinished task holds it. */
function keyTakenBack(model: Model, id: string): Model {
  const key = taskOf(model, id).key;
  if (key === undefined) return model;
  const holder = model.keys.get(key);
  const status = holder === undefined ? 'GONE' : taskOf(model, holder).status;
  if (holder !== id && (status === 'READY' || status === 'RUNNING')) return model;
  return { ...model, keys: new Map(model.keys).set(key, id) };
}

/** A read of the task, then a store against what was read: the shape of retry and remove by hand. */
function readThenStore(
  id: string,
  storeMethod: string,
  early: (read: ModelTask) => string | null,
  store: (
    now: ModelTask,
    read: ModelTask,
  ) => { change?: Partial<ModelTask>; outcome: string; takesKeyBack?: boolean },
): Step[] {
  return [
    {
      method: 'getResult',
      apply: (model) => {
        const read = taskOf(model, id);
        if (read.status === 'GONE') return { model, outcome: 'missing' };
        const outcome = early(read);
        return outcome === null ? { model, read } : { model, outcome };
      },
    },
    {
      method: storeMethod,
      apply: (model, read) => {
        const decided = store(taskOf(model, id), read!);
        const next = decided.change ? withTask(model, id, decided.change) : model;
        return {
          model: decided.takesKeyBack ? keyTakenBack(next, id) : next,
          outcome: decided.outcome,
        };
      },
    },
  ];
}

export const retried = (id: string): Step[] =>
  readThenStore(
    id,
    'retryFinished',
    (read) => {
      if (read.status === 'SUCCESSFUL') return 'successful';
      return RETRYABLE.has(read.status) ? null : 'not-final';
    },
    (now, read) => {
      if (now.version === read.version) {
        return {
          change: { status: 'READY', marked: false },
          outcome: 'retried',
          takesKeyBack: true,
        };
      }
      return { outcome: now.status === 'GONE' ? 'missing' : 'already-retried' };
    },
  );

export const removed = (id: string): Step[] =>
  readThenStore(
    id,
    'removeFinished',
    (read) => (FINAL.has(read.status) ? null : 'not-final'),
    (now, read) => {
      if (now.version === read.version) return { change: { status: 'GONE' }, outcome: 'removed' };
      return { outcome: now.status === 'GONE' ? 'already-removed' : 'already-retried' };
    },
  );

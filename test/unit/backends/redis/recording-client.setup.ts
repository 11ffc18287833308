import type { RedisScriptName } from '../../../../lib/backends/redis/redis-script-sources';
import { RedisControlScripts } from '../../../../lib/backends/redis/redis-control-scripts';
import { RedisFinishedScripts } from '../../../../lib/backends/redis/redis-finished-scripts';
import { RedisListingScripts } from '../../../../lib/backends/redis/redis-listing-scripts';
import { RedisProgressScript } from '../../../../lib/backends/redis/redis-progress-script';
import { RedisScheduleScripts } from '../../../../lib/backends/redis/redis-schedule-scripts';
import type { RedisClient } from '../../../../lib/backends/redis/redis-clients';
import { RedisScripts } from '../../../../lib/backends/redis/redis-scripts';

/**
 * A stand-in for ioredis that only records what each defined command was
 * called with (no Redis semantics): enough to see how many KEYS a wrapper
 * lays out. Replies are the empty shape each wrapper accepts.
 */
export function recordingClient() {
  const definitions = new Map<string, { numberOfKeys?: number }>();
  const calls = new Map<RedisScriptName, (string | number)[]>();
  const replies: Record<RedisScriptName, unknown> = {
    enqueue: [2],
    moveOutboxed: [2],
    moveOutboxedUnique: [0],
    enqueueUnique: [0, 0, 0],
    forgetFreeKeys: [0, '0'],
    acquire: [2, 1, 1, 0],
    acknowledge: [1, 1],
    retry: [1, 1],
    release: 2,
    promoteDeferred: 0,
    forgetPool: 1,
    resumeQueue: 0,
    storeQueueLimits: 0,
    beatPool: 1,
    readPools: [1],
    listSegment: [1, null, null],
    claimRole: 1,
    markListening: 1,
    markPass: 1,
    storeTime: [1, null],
    trimFinished: 0,
    cancel: [1, ''],
    retryFinished: 1,
    removeFinished: 1,
    storeProgress: [1, 1],
    putSchedule: 1,
    removeSchedule: 1,
    readSchedules: [],
    dueSchedules: [1],
    advanceSchedule: 1,
  };
  const client = {
    defineCommand(name: string, definition: { numberOfKeys?: number }) {
      definitions.set(name, definition);
      const script = name.replace(/^threadmill_/, '') as RedisScriptName;
      Object.assign(client, {
        // The wrappers hand ioredis one array (it flattens it), never a spread.
        [name]: (args: (string | number)[]) => {
          calls.set(script, args);
          return Promise.resolve(replies[script]);
        },
      });
    },
  };
  return { client: client as unknown as RedisClient, definitions, calls };
}

/** Placeholder arguments of the acquire wrapper and of every store, for tests that count KEYS. */
export const ACQUIRE_ARGS = {
  sentBehindWait: false,
  leaseTtlMs: 2,
  max: 1,
  workerJson: '"w"',
  runningStatus: 'RUNNING',
  poolId: '',
  queueNames: 'q q',
  liveChannel: 'l',
};
export const STORE = {
  resultTtlMs: 1,
  taskPrefix: 'p',
  poolTasksPrefix: 'p',
  poolHint: '',
  channel: 'c',
};

/** Calls every wrapper with two items; returns how many KEYS each passed. */
export async function keysPassedByWrappers(): Promise<Record<RedisScriptName, number>> {
  const { client, definitions, calls } = recordingClient();
  const scripts = new RedisScripts(client);
  const control = new RedisControlScripts(client);
  const listing = new RedisListingScripts(client);
  const schedules = new RedisScheduleScripts(client);
  const finished = new RedisFinishedScripts(client);
  const two = <T>(item: T): T[] => [item, item];
  const queues = two({ queueKey: 'k', deferredKey: 'k', ingressPrefix: 'k', wakeKey: 'k' });
  const batches = [{ queueIndex: 0, priority: 0, delayMs: null, ids: ['i'], data: ['{}'] }];
  const generation = { generationKey: 'g', generation: 1 };
  const moveWindow = { movedPrefix: 'm', windowMs: 1 };
  const stored = {
    taskPrefix: 'p',
    resultTtlMs: 1,
    priorityWeight: 1,
    wakeBound: 1,
    liveChannel: 'l',
    queueNames: 'q q',
  };
  await scripts.enqueue.store('seq', queues, batches, { ...stored, each: false });
  await scripts.enqueue.move(generation, moveWindow, 'seq', queues, batches, stored);
  const item = { queueIndex: 0, priority: 0, delayMs: null, id: 'i', data: '{}', unique: null };
  const uniqueKeys = { sequenceKey: 'seq', uniqueKeysKey: 'u' };
  const storedUnique = { ...stored, windowPrefix: 'w', runningStatus: 'RUNNING' };
  await scripts.unique.enqueue(uniqueKeys, queues, two(item), { ...storedUnique, each: false });
  await scripts.unique.move(generation, moveWindow, uniqueKeys, queues, two(item), storedUnique);
  await scripts.unique.forgetFreeKeys('u', { taskPrefix: 'p', cursor: '0', count: 1 });
  const group = { label: '[]', runningKey: 'k', historyKey: 'k', ids: ['i'], json: ['{}'] };
  await scripts.acquire(
    { poolTasksKey: 'pool', poolsKey: 'pools', pausedKey: 'paused', limitsKey: 'limits' },
    two({ queueKey: 'k', runningKey: 'k', wakeKey: 'k', rateKey: 'k' }),
    ACQUIRE_ARGS,
    STORE,
    two(group),
  );
  await scripts.acknowledge(two(group), STORE);
  await scripts.retry(
    two({
      runningKey: 'k',
      taskKey: 'k',
      deferredKey: 'k',
      queueKey: 'k',
      wakeKey: 'k',
      id: 'i',
      data: '{}',
      workersJson: '[]',
      delayMs: 1,
      fallbackScore: 0,
    }),
    { readyStatus: 'READY', poolTasksPrefix: 'p', wakeBound: 1 },
  );
  await scripts.release(
    two({ runningKey: 'k', queueKey: 'k', taskKey: 'k', wakeKey: 'k', id: 'i', fallbackScore: 0 }),
    'READY',
    1,
    'p',
  );
  await scripts.forgetPool(
    { poolsKey: 'k', poolTasksKey: 'k', cancelsKey: 'k', poolInfoKey: 'k' },
    { poolId: 'p', stopping: false },
  );
  await control.cancel(
    { queueKey: 'k', deferredKey: 'k', runningKey: 'k', historyKey: 'k', taskKey: 'k' },
    {
      id: 'i',
      workersSeen: '',
      outcome: '{}',
      resultTtlMs: 1,
      cancelsPrefix: 'p',
      channel: 'c',
      message: '[]',
      lease: 'w',
    },
  );
  await scripts.promoteDeferred(
    { deferredKey: 'k', queueKey: 'k', wakeKey: 'k' },
    { max: 1, taskPrefix: 'p', wakeBound: 1 },
  );
  await control.resumeQueue(
    { pausedKey: 'k', queueKey: 'k', wakeKey: 'k' },
    { queue: 'q', wakeBound: 1 },
  );
  await control.storeQueueLimits(
    { pausedKey: 'k', limitsKey: 'k', queueKey: 'k', wakeKey: 'k', rateKey: 'k' },
    { queue: 'q', encoded: '1 0 0', onlyIfAbsent: false, wakeBound: 1 },
  );
  await scripts.beatPool({ poolsKey: 'k', poolInfoKey: 'k' }, { poolId: 'p', ttlMs: 1, info: '' });
  await listing.readPools({ poolsKey: 'k', poolInfoKey: 'k' }, { poolTasksPrefix: 'p', max: 1 });
  await listing.listSegment('k', {
    descending: false,
    after: null,
    examine: 1,
    wanted: 1,
    keptMs: null,
    taskPrefix: 'p',
    dataPrefix: '',
    fields: ['data'],
  });
  await control.claimRole('k', 'h', 1);
  await control.markListening('k', 1);
  await control.markPass('k', 1, 1);
  await scripts.storeTime('k');
  await scripts.trimFinished('k', { taskPrefix: 'p', maxAgeMs: 1, maxCount: null, max: 1 });
  const scheduleKeys = { cursorsKey: 'k', entriesKey: 'k', lastTicksKey: 'k' };
  await schedules.putSchedule(scheduleKeys, { id: 's', entryJson: '{}', nextTickMs: 1 });
  await schedules.removeSchedule(scheduleKeys, 's');
  await schedules.readSchedules(scheduleKeys, null);
  await schedules.dueSchedules(scheduleKeys, 1);
  await schedules.advanceSchedule(scheduleKeys, {
    id: 's',
    fromMs: 1,
    toMs: 2,
    lastTickJson: null,
  });
  await finished.retryFinished(
    { taskKey: 'k', historyKey: 'k', queueKey: 'k', wakeKey: 'k', uniqueKeysKey: 'u' },
    {
      id: 'i',
      outcomeSeen: '{}',
      readyStatus: 'READY',
      data: '{}',
      workersJson: '[]',
      fallbackScore: 0,
      wakeBound: 1,
      uniqueKey: null,
      taskPrefix: 'p',
      windowPrefix: 'w',
    },
  );
  await finished.removeFinished(
    { taskKey: 'k', historyKey: 'k', uniqueKeysKey: 'u' },
    { id: 'i', outcomeSeen: '{}', uniqueKey: null },
  );
  await new RedisProgressScript(client).storeProgress(
    two({
      runningKey: 'k',
      taskKey: 'k',
      id: 'i',
      attempt: 1,
      stored: '[1,0]',
      queue: 'q',
      name: 't',
    }),
    'l',
  );
  const passed = {} as Record<RedisScriptName, number>;
  for (const [name, args] of calls) {
    const fixed = definitions.get(`threadmill_${name}`)?.numberOfKeys;
    // Variadic commands take the key count as their first argument.
    passed[name] = fixed ?? Number(args[0]);
  }
  return passed;
}

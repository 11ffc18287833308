import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import {
  LUA_DIR,
  REDIS_SCRIPTS,
  type RedisScriptName,
} from '../../../../lib/backends/redis/redis-script-sources';
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
function recordingClient() {
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
const ACQUIRE_ARGS = {
  sentBehindWait: false,
  leaseTtlMs: 2,
  max: 1,
  workerJson: '"w"',
  runningStatus: 'RUNNING',
  poolId: '',
  queueNames: 'q q',
  liveChannel: 'l',
};
const STORE = {
  resultTtlMs: 1,
  taskPrefix: 'p',
  poolTasksPrefix: 'p',
  poolHint: '',
  channel: 'c',
};

/** Calls every wrapper with two items; returns how many KEYS each passed. */
async function keysPassedByWrappers(): Promise<Record<RedisScriptName, number>> {
  const { client, definitions, calls } = recordingClient();
  const scripts = new RedisScripts(client);
  const two = <T>(item: T): T[] => [item, item];
  await scripts.enqueue.store(
    'seq',
    two({ queueKey: 'k', deferredKey: 'k', ingressPrefix: 'k', wakeKey: 'k' }),
    [{ queueIndex: 0, priority: 0, delayMs: null, ids: ['i'], data: ['{}'] }],
    {
      taskPrefix: 'p',
      resultTtlMs: 1,
      priorityWeight: 1,
      wakeBound: 1,
      each: false,
      liveChannel: 'l',
      queueNames: 'q q',
    },
  );
  await scripts.enqueue.move(
    { generationKey: 'g', generation: 1 },
    { movedPrefix: 'm', windowMs: 1 },
    'seq',
    two({ queueKey: 'k', deferredKey: 'k', ingressPrefix: 'k', wakeKey: 'k' }),
    [{ queueIndex: 0, priority: 0, delayMs: null, ids: ['i'], data: ['{}'] }],
    {
      taskPrefix: 'p',
      resultTtlMs: 1,
      priorityWeight: 1,
      wakeBound: 1,
      liveChannel: 'l',
      queueNames: 'q q',
    },
  );
  const item = { queueIndex: 0, priority: 0, delayMs: null, id: 'i', data: '{}', unique: null };
  await scripts.unique.enqueue(
    { sequenceKey: 'seq', uniqueKeysKey: 'u' },
    two({ queueKey: 'k', deferredKey: 'k', ingressPrefix: 'k', wakeKey: 'k' }),
    two(item),
    {
      taskPrefix: 'p',
      windowPrefix: 'w',
      resultTtlMs: 1,
      priorityWeight: 1,
      wakeBound: 1,
      runningStatus: 'RUNNING',
      each: false,
      liveChannel: 'l',
      queueNames: 'q q',
    },
  );
  await scripts.unique.move(
    { generationKey: 'g', generation: 1 },
    { movedPrefix: 'm', windowMs: 1 },
    { sequenceKey: 'seq', uniqueKeysKey: 'u' },
    two({ queueKey: 'k', deferredKey: 'k', ingressPrefix: 'k', wakeKey: 'k' }),
    two(item),
    {
      taskPrefix: 'p',
      windowPrefix: 'w',
      resultTtlMs: 1,
      priorityWeight: 1,
      wakeBound: 1,
      runningStatus: 'RUNNING',
      liveChannel: 'l',
      queueNames: 'q q',
    },
  );
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
  const control = new RedisControlScripts(client);
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
  const listing = new RedisListingScripts(client);
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
  const schedules = new RedisScheduleScripts(client);
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
  const finished = new RedisFinishedScripts(client);
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

interface Header {
  text: string;
  /** KEYS[n] lines with a literal index. */
  fixedKeys: number[];
  /** KEYS[<expr with a letter>] lines: the per-item keys of a variadic script. */
  perItemKeys: string[];
}

function header(file: string): Header {
  const source = readFileSync(join(LUA_DIR, file), 'utf8');
  // After the #!lua line of a script (see the test of shebangs below).
  const match = /^(?:#!lua[^\n]*\n)?--\[\[\n([\s\S]*?)\n\]\]/.exec(source);
  if (!match) throw new Error(`${file} does not start with a --[[ ]] header`);
  const text = match[1];
  const keyLines = text.split('\n').filter((line) => /^\s*KEYS\[/.test(line));
  return {
    text,
    fixedKeys: keyLines
      .map((line) => /^\s*KEYS\[(\d+)\]/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1])),
    perItemKeys: keyLines.filter((line) => /^\s*KEYS\[[^\]]*[a-z][^\]]*\]/.test(line)),
  };
}

const luaFiles = readdirSync(LUA_DIR).filter(
  (file) => file.endsWith('.lua') && !file.endsWith('.function.lua'),
);

describe('Lua script headers', () => {
  it('every .lua file is registered in REDIS_SCRIPTS, and every registered file exists', () => {
    const registered = Object.values(REDIS_SCRIPTS).map((script) => script.file);
    expect([...luaFiles].sort()).toEqual([...registered].sort());
  });

  it.each(Object.entries(REDIS_SCRIPTS))(
    '%s: file name, header and wrapper agree on the keys',
    (_name, { file, keys }) => {
      expect(file).toMatch(/^[a-z][a-zA-Z]*(-\d+)?\.lua$/);
      const parsed = header(file);
      const suffix = /-(\d+)\.lua$/.exec(file);
      // The fixed KEYS are numbered 1..n without gaps.
      expect(parsed.fixedKeys).toEqual(Array.from({ length: keys.fixed }, (_, i) => i + 1));
      if ('perItem' in keys) {
        expect(suffix).toBeNull();
        expect(parsed.text).toMatch(/Variadic KEYS/);
        expect(parsed.perItemKeys).toHaveLength(keys.perItem);
      } else {
        expect(suffix).not.toBeNull();
        expect(Number(suffix![1])).toBe(keys.fixed);
        expect(parsed.perItemKeys).toHaveLength(0);
      }
    },
  );

  it('each TS wrapper passes the KEYS its header documents (fixed + 2 items x per item)', async () => {
    const passed = await keysPassedByWrappers();
    for (const [name, { file, keys }] of Object.entries(REDIS_SCRIPTS)) {
      const documented = header(file);
      const perItem = 'perItem' in keys ? documented.perItemKeys.length : 0;
      expect({ name, keys: passed[name as RedisScriptName] }).toEqual({
        name,
        keys: documented.fixedKeys.length + 2 * perItem,
      });
    }
  });

  // Redis 7 refuses a script that declares flags, and lacks allow-oom, whole and before
  // it runs when memory is over maxmemory; one without flags runs until its first refused
  // write and stops halfway. So every script declares them. Allowed under OOM: the
  // scripts that only delete (trimming results, forgetting ended unique keys and dead
  // pools, removing a result by hand free memory, which a full Redis needs), a channel's
  // listener mark (one small STRING without which a process waiting on a full Redis would
  // miss the finish stored once memory frees), the maintenance heartbeat (one STRING
  // replaced in place), and the ones a full Redis needs to drain:
  // leasing, storing outcomes, retrying, releasing, promoting what is due again, resuming
  // a queue and the pools' heartbeats. They move tasks towards their end (a finished task
  // expires, a waiting one never does) and each adds little; whatever makes new work
  // (enqueue, schedules) or stores a caller's values (progress, limits) stays refused.
  const ONLY_DELETES = ['ZRANGEBYSCORE', 'ZCARD', 'ZRANGE', 'HSCAN', 'DEL', 'ZREM', 'HDEL'];
  const ALLOWED_UNDER_OOM: Record<string, readonly string[] | 'drains'> = {
    'trimFinished-1.lua': ONLY_DELETES,
    'forgetFreeKeys-1.lua': ONLY_DELETES,
    // Lapses a stopping pool's score in place (ZADD of a member it holds) before it goes.
    'forgetPool-4.lua': [...ONLY_DELETES, 'ZSCORE', 'SCARD', 'ZADD'],
    'removeFinished-3.lua': [...ONLY_DELETES, 'TYPE', 'HGET'],
    'markListening-1.lua': ['SET'],
    'markPass-1.lua': ['SET'],
    'acquire.lua': 'drains',
    'acknowledge.lua': 'drains',
    'retry.lua': 'drains',
    'release.lua': 'drains',
    'promoteDeferred-3.lua': 'drains',
    'resumeQueue-3.lua': 'drains',
    'beatPool-2.lua': 'drains',
  };
  it.each(luaFiles)(
    '%s starts with a #!lua line that allows OOM only to delete, mark or drain',
    (file) => {
      const text = readFileSync(join(LUA_DIR, file), 'utf8');
      const [first] = text.split('\n');
      expect(first).toMatch(/^#!lua( flags=[a-z-]+(,[a-z-]+)*)?$/);
      const allowed = ALLOWED_UNDER_OOM[file];
      if (!allowed) {
        expect(first).not.toMatch(/allow-oom/);
        return;
      }
      expect(first).toMatch(/allow-oom/);
      // Its header says so, and no longer promises an OOM error.
      expect(header(file).text).toMatch(/allow-oom/);
      expect(header(file).text).not.toMatch(/Errors OOM/);
      if (allowed === 'drains') return;
      const calls = [...text.matchAll(/redis\.call\('([A-Z]+)'/g)].map((m) => m[1]);
      expect(calls.filter((command) => !allowed.includes(command))).toEqual([]);
    },
  );

  it('leaves every script that makes new work or stores a caller value refused on a full Redis', () => {
    for (const file of [
      'enqueue.lua',
      'enqueueUnique.lua',
      'moveOutboxedUnique.lua',
      'storeProgress.lua',
      'putSchedule-2.lua',
      'storeQueueLimits-5.lua',
      'retryFinished-5.lua',
    ]) {
      expect({ file, first: readFileSync(join(LUA_DIR, file), 'utf8').split('\n')[0] }).toEqual({
        file,
        first: '#!lua',
      });
    }
  });

  it.each(readdirSync(LUA_DIR).filter((file) => file.endsWith('.function.lua')))(
    "%s has no #!lua line: it is prepended after the script's own",
    (file) => {
      expect(readFileSync(join(LUA_DIR, file), 'utf8').startsWith('#!')).toBe(false);
    },
  );

  it("keeps a script's #!lua line first when functions are prepended to it", () => {
    const sources: string[] = [];
    const client = {
      defineCommand(name: string, definition: { lua: string }) {
        sources.push(definition.lua);
        Object.assign(client, { [name]: () => Promise.resolve(null) });
      },
    };
    new RedisScripts(client as unknown as RedisClient);
    expect(sources).toHaveLength(Object.keys(REDIS_SCRIPTS).length);
    for (const lua of sources) {
      const lines = lua.split('\n');
      expect(lines[0]).toMatch(/^#!lua( flags=|$)/);
      expect(lines.filter((line) => line.startsWith('#!'))).toHaveLength(1);
    }
  });

  // A ]] inside the --[[ ]] block would end the comment there, and Redis would refuse the
  // rest of the header as code.
  it.each(readdirSync(LUA_DIR).filter((file) => file.endsWith('.lua')))(
    '%s has no ]] inside its header',
    (file) => {
      expect(header(file).text).not.toContain(']]');
    },
  );

  it.each(luaFiles)('%s has a why-paragraph, ARGV, Returns and Errors sections', (file) => {
    const { text } = header(file);
    const [why] = text.trim().split(/\n\s*\n/);
    expect(why.split(/\s+/).length).toBeGreaterThan(20);
    // A script that takes no arguments says so.
    expect(text).toMatch(/^\s*ARGV(\[\d+\] \S| none$)/m);
    expect(text).toMatch(/^\s*Returns \S/m);
    expect(text).toMatch(/^\s*Errors \S/m);
    // Every KEYS line names the Redis type it expects.
    for (const line of text.split('\n').filter((l) => /^\s*KEYS\[/.test(l))) {
      expect(line).toMatch(/\((STRING|HASH|ZSET|LIST|SET)\)/);
    }
  });

  it.each(luaFiles)('%s derives keys only as documented and names no TS class', (file) => {
    const source = readFileSync(join(LUA_DIR, file), 'utf8');
    const body = source.slice(source.indexOf(']]') + 2);
    // Concatenating onto an ARGV prefix builds a key: the header must declare it.
    if (/ARGV\[\d+\]\s*\.\./.test(body) || /prefix \.\./.test(body)) {
      expect(header(file).text).toMatch(/Derived keys: [\s\S]*?same hash tag/);
    }
    expect(body).not.toMatch(/threadmill:/);
    expect(body).not.toMatch(/[A-Z][a-z]+(Error|Timeout)\b/);
    expect(body).not.toMatch(/'(READY|RUNNING|SUCCESSFUL|FAILED)'/);
  });

  it("acquire lays out its pool's 2 KEYS, the paused set, the limits, 4 per queue, then 2 per group of finished records", async () => {
    const { client, calls } = recordingClient();
    const queue = (q: string) => ({
      queueKey: `ready${q}`,
      runningKey: `running${q}`,
      wakeKey: `wake${q}`,
      rateKey: `rate${q}`,
    });
    await new RedisScripts(client).acquire(
      { poolTasksKey: 'pool', poolsKey: 'pools', pausedKey: 'paused', limitsKey: 'limits' },
      [queue('A'), queue('B'), queue('C')],
      ACQUIRE_ARGS,
      STORE,
      [
        {
          label: '["A","SUCCESSFUL","T.t"]',
          runningKey: 'runningA',
          historyKey: 'doneA',
          ids: ['i', 'j'],
          json: ['{}', '{}'],
        },
      ],
    );
    const [count, ...rest] = calls.get('acquire') ?? [];
    expect(count).toBe(18);
    expect(rest.slice(0, 18)).toEqual(
      [
        'pool',
        'pools',
        'paused',
        'limits',
        'readyA',
        'runningA',
        'wakeA',
        'rateA',
        'readyB',
        'runningB',
        'wakeB',
        'rateB',
      ].concat(['readyC', 'runningC', 'wakeC', 'rateC', 'runningA', 'doneA']),
    );
    // ARGV[8] says how many queues KEYS names, so the script finds the groups after them.
    expect(rest[18 + 7]).toBe(3);
    // ARGV[12] names the queues, so the script can tell which of them are paused or limited.
    expect(rest[18 + 11]).toBe(ACQUIRE_ARGS.queueNames);
    // ARGV[13] and ARGV[14] are the finished and live channels; each group starts with its
    // label, then its count.
    expect(rest.slice(18 + 12, 18 + 16)).toEqual(['c', 'l', '["A","SUCCESSFUL","T.t"]', 2]);
  });

  it.each(
    Object.values(REDIS_SCRIPTS)
      .filter(
        (script) =>
          'uses' in script && (script.uses as readonly string[]).includes('storeFinished'),
      )
      .map((script) => script.file),
  )('%s hands storeFinished its groups right after the ARGV its header documents', (file) => {
    const source = readFileSync(join(LUA_DIR, file), 'utf8');
    const documented = [...header(file).text.matchAll(/^\s*ARGV\[(\d+)\]/gm)].map((m) =>
      Number(m[1]),
    );
    const call = /storeFinished\([^,]+, (\d+),/.exec(source);
    expect(call).not.toBeNull();
    expect(Number(call![1])).toBe(Math.max(...documented) + 1);
  });

  it.each(
    Object.values(REDIS_SCRIPTS)
      .filter(
        (script) => 'uses' in script && (script.uses as readonly string[]).includes('publishLive'),
      )
      .map((script) => script.file),
  )('%s documents the live channel it publishes on, and what it publishes', (file) => {
    const { text } = header(file);
    expect(text).toMatch(/^\s*ARGV\[\d+\] pub\/sub channel of the alias's live events/m);
    expect(text).toMatch(
      /^\s*Publishes once on ARGV\[\d+\] .*\n\s*\[(enqueued|started|progressed),/m,
    );
  });

  it('acquire asks for both listener marks in one EXISTS, and hands the answer to storeFinished', () => {
    const source = readFileSync(join(LUA_DIR, 'acquire.lua'), 'utf8');
    expect(source).toMatch(/anyListened\(ARGV\[13\], ARGV\[14\]\)/);
    expect(source).toMatch(/heard = listened\(\),/);
    expect(source).toMatch(/listened\(\) and liveListened\(ARGV\[14\]\)/);
  });

  it.each(readdirSync(LUA_DIR).filter((file) => file.endsWith('.function.lua')))(
    '%s documents why, its parameters and what it returns',
    (file) => {
      const { text } = header(file);
      const name = file.replace('.function.lua', '');
      expect(text).toMatch(new RegExp(`^\\s*${name}: `));
      expect(text).toMatch(/^\s*Parameters$/m);
      expect(text).toMatch(/^\s*Returns \S/m);
      const source = readFileSync(join(LUA_DIR, file), 'utf8');
      expect(source).toMatch(new RegExp(`^local function ${name}\\(`, 'm'));
    },
  );
});

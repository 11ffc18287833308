import type { RedisClient } from '../../../../lib/backends/redis/redis-clients';
import { REDIS_SCRIPTS } from '../../../../lib/backends/redis/redis-script-sources';
import { RedisScripts } from '../../../../lib/backends/redis/redis-scripts';
import { functionFiles, header, luaFiles, luaSource } from './lua-headers.setup';

describe('Lua script headers', () => {
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
      const text = luaSource(file);
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
      expect({ file, first: luaSource(file).split('\n')[0] }).toEqual({
        file,
        first: '#!lua',
      });
    }
  });

  it.each(functionFiles)("%s has no #!lua line: it is prepended after the script's own", (file) => {
    expect(luaSource(file).startsWith('#!')).toBe(false);
  });

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
});

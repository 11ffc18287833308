import {
  REDIS_SCRIPTS,
  type RedisScriptName,
} from '../../../../lib/backends/redis/redis-script-sources';
import { RedisScripts } from '../../../../lib/backends/redis/redis-scripts';
import { header, luaFiles, luaSource } from './lua-headers.setup';
import {
  ACQUIRE_ARGS,
  keysPassedByWrappers,
  recordingClient,
  STORE,
} from './recording-client.setup';

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
    const source = luaSource(file);
    const documented = [...header(file).text.matchAll(/^\s*ARGV\[(\d+)\]/gm)].map((m) =>
      Number(m[1]),
    );
    const call = /storeFinished\([^,]+, (\d+),/.exec(source);
    expect(call).not.toBeNull();
    expect(Number(call![1])).toBe(Math.max(...documented) + 1);
  });

  it('acquire asks for both listener marks in one EXISTS, and hands the answer to storeFinished', () => {
    const source = luaSource('acquire.lua');
    expect(source).toMatch(/anyListened\(ARGV\[13\], ARGV\[14\]\)/);
    expect(source).toMatch(/heard = listened\(\),/);
    expect(source).toMatch(/listened\(\) and liveListened\(ARGV\[14\]\)/);
  });
});

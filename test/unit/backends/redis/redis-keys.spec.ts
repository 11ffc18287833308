import { RedisKeys } from '../../../../lib/backends/redis/redis-keys';

describe('RedisKeys', () => {
  const keys = new RedisKeys('orders');

  it('builds the documented key layout (a finished task stays in its hash), every key under the {alias} hash tag', () => {
    expect({
      queue: keys.queue('emails'),
      running: keys.running('emails'),
      deferred: keys.deferred('emails'),
      task: keys.task('abc'),
      successful: keys.history('emails', 'successful'),
      failed: keys.history('emails', 'failed'),
      ingress: keys.ingress('emails', 493_000),
    }).toEqual({
      queue: 'threadmill:{orders}:queue:emails',
      running: 'threadmill:{orders}:running:emails',
      deferred: 'threadmill:{orders}:deferred:emails',
      task: 'threadmill:{orders}:task:abc',
      successful: 'threadmill:{orders}:results:emails:successful',
      failed: 'threadmill:{orders}:results:emails:failed',
      ingress: 'threadmill:{orders}:ingress:emails:493000',
    });
    for (const extra of [
      keys.wake('emails'),
      keys.sequence,
      keys.maintenanceHeartbeat,
      keys.paused,
      keys.poolInfo,
      keys.storeMark,
    ]) {
      expect(extra.startsWith('threadmill:{orders}:')).toBe(true);
    }
    expect(keys.task('abc').startsWith(keys.taskPrefix)).toBe(true);
  });

  it('names the live channel apart from the finished one, each its own listener mark', () => {
    expect(keys.liveChannel).toBe('threadmill:{orders}:live');
    expect(keys.liveListenerMark).toBe(keys.liveChannel);
    expect(keys.liveChannel).not.toBe(keys.finishedChannel);
  });

  it('escapes glob characters of the alias in its SCAN pattern', () => {
    expect(new RedisKeys('a*b?[c]').scanPattern).toBe('threadmill:{a\\*b\\?\\[c\\]}:*');
    expect(new RedisKeys('orders', 'app*1').scanPattern).toBe('app\\*1:{orders}:*');
  });

  it('starts every key and channel with the prefix given, the {alias} hash tag unchanged', () => {
    const names = (built: RedisKeys): string[] => {
      const prototype = Object.getPrototypeOf(built) as object;
      return Object.entries(Object.getOwnPropertyDescriptors(prototype))
        .filter(([name]) => name !== 'constructor' && name !== 'scanPattern')
        .map(([name, descriptor]) => {
          if (descriptor.get) return descriptor.get.call(built) as string;
          const method = descriptor.value as (...args: unknown[]) => string;
          // history takes a segment, ingress an hour; the rest one name.
          return method.call(built, 'emails', name === 'ingress' ? 493_000 : 'successful');
        });
    };
    const custom = names(new RedisKeys('orders', 'billing'));
    const standard = names(keys);
    expect(custom.length).toBeGreaterThanOrEqual(25);
    for (const name of custom) expect(name.startsWith('billing:{orders}:')).toBe(true);
    // The default keeps the layout stored data has: only the first part differs.
    expect(standard).toEqual(custom.map((name) => name.replace(/^billing:/, 'threadmill:')));
    expect(new RedisKeys('orders', 'billing').scanPattern).toBe('billing:{orders}:*');
  });
});

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
  });
});

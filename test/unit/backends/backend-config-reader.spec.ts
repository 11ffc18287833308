import { BackendConfigReader } from '../../../lib/backends/backend-config.reader';
import { MemoryBackend } from '../../../lib/backends/memory/memory.backend';
import { InvalidBackendConfigError } from '../../../lib/core/errors/invalid-backend-config.error';

describe('BackendConfigReader: queues with their limits', () => {
  const withQueues = (queues: unknown[]): BackendConfigReader =>
    new BackendConfigReader(
      'limits',
      { backend: MemoryBackend, queues: queues as string[] },
      'MemoryBackend',
      [],
    );

  it('keeps the queues a list of names, and the limits beside them by queue', () => {
    const read = withQueues([
      'default',
      { name: 'emails', concurrency: 5, rateLimit: { max: 100, perMs: 1000 } },
      { name: 'low' },
    ]);
    expect(read.queues).toEqual(['default', 'emails', 'low']);
    expect(read.common().limits).toEqual({
      emails: { concurrency: 5, rateLimit: { max: 100, perMs: 1000 } },
    });
  });

  it.each([
    [
      [{ name: 'a', concurrency: 0 }],
      'option "queues[0].concurrency" must be a whole number of at least 1',
    ],
    [
      ['x', { name: 'a', concurrency: 1.5 }],
      'option "queues[1].concurrency" must be a whole number',
    ],
    [
      [{ name: 'a', rateLimit: { max: 10 } }],
      'option "queues[0].rateLimit" must be { max, perMs }',
    ],
    [
      [{ name: 'a', rateLimit: { max: 1, perMs: 1, burst: 2 } }],
      'has "burst"; it is { max, perMs }',
    ],
    [[{ name: 'a', concurency: 5 }], 'option "queues[0]" has "concurency"'],
    [[{ concurrency: 5 }], 'option "queues[0].name" must be a queue name'],
    [['a', { name: 'a', concurrency: 2 }], 'lists a queue twice'],
  ])('refuses queues %j', (queues, problem) => {
    expect(() => withQueues(queues)).toThrow(InvalidBackendConfigError);
    expect(() => withQueues(queues)).toThrow(problem);
  });
});

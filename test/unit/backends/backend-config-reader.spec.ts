import { Logger } from '@nestjs/common';

import { BackendConfigReader } from '../../../lib/backends/backend-config.reader';
import { MemoryBackend } from '../../../lib/backends/memory/memory.backend';
import { InvalidBackendConfigError } from '../../../lib/core';

const reader = (options: Record<string, unknown>): BackendConfigReader =>
  new BackendConfigReader('renames', { backend: MemoryBackend, options }, 'MemoryBackend', []);

describe('BackendConfigReader: options renamed since an earlier release', () => {
  afterEach(() => jest.restoreAllMocks());

  it('reads brokerInterval as maintenanceInterval, and says once that it is deprecated', () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    expect(reader({ brokerInterval: 250 }).common().maintenanceInterval).toBe(250);
    expect(reader({ brokerInterval: 500 }).common().maintenanceInterval).toBe(500);
    const said = warn.mock.calls.filter(([message]) => /"brokerInterval"/.test(String(message)));
    expect(said).toEqual([[expect.stringMatching(/deprecated and read as "maintenanceInterval"/)]]);
  });

  it('checks the value under the earlier name as under the current one', () => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    expect(() => reader({ brokerInterval: 1.5 }).common()).toThrow(
      /option "maintenanceInterval" must be a positive whole/,
    );
  });

  it('refuses both names at once, whatever their values', () => {
    const both = (): unknown => reader({ brokerInterval: 250, maintenanceInterval: 250 });
    expect(both).toThrow(InvalidBackendConfigError);
    expect(both).toThrow(
      /"renames": option "brokerInterval" is the earlier name of maintenanceInterval; give only maintenanceInterval/,
    );
  });
});

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

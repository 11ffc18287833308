import { resolve } from 'node:path';

import { resolveSqliteBackendSettings } from '../../../../lib/backends/sqlite/sqlite-backend-options';
import { Retention } from '../../../../lib/core/retention';
import type { BackendConfig } from '../../../../lib/core/backend-config.interface';
import { InvalidBackendConfigError } from '../../../../lib/core/errors/invalid-backend-config.error';

// Never constructed here: resolveSqliteBackendSettings only reads the config.
class NoBackend {}
const config = (overrides: Partial<BackendConfig> = {}): BackendConfig => ({
  backend: NoBackend as unknown as BackendConfig['backend'],
  url: 'sqlite:///var/lib/app/threadmill.db',
  ...overrides,
});

describe('resolveSqliteBackendSettings', () => {
  it('fills in the documented defaults and the default queue', () => {
    expect(resolveSqliteBackendSettings('main', config())).toEqual({
      busyTimeout: 5000,
      maxPollInterval: 100,
      synchronous: 'NORMAL',
      leaseTtl: 3_600_000,
      resultTtl: 86_400_000,
      maintenanceInterval: 1000,
      batchSize: 100,
      filename: '/var/lib/app/threadmill.db',
      queues: ['default'],
      limits: {},
      retention: expect.any(Retention),
    });
  });

  it.each([
    ['sqlite:///abs/x.db', '/abs/x.db'],
    ['sqlite://data/x.db', resolve('data/x.db')],
    ['sqlite:data/x.db', resolve('data/x.db')],
    ['file:///abs/x.db', '/abs/x.db'],
    ['file:data/x.db', resolve('data/x.db')],
    ['/abs/x.db', '/abs/x.db'],
    ['./data/x.db', resolve('data/x.db')],
    ['sqlite:///abs/with%20space.db', '/abs/with space.db'],
  ])('reads the file of url %s as %s', (url, filename) => {
    expect(resolveSqliteBackendSettings('main', config({ url })).filename).toBe(filename);
  });

  it('keeps the given options and queues', () => {
    const resolved = resolveSqliteBackendSettings(
      'main',
      config({
        queues: ['emails', 'default'],
        options: { leaseTtl: 5000, batchSize: 7, synchronous: 'FULL', maxPollInterval: 20 },
      }),
    );
    expect(resolved).toMatchObject({
      queues: ['emails', 'default'],
      leaseTtl: 5000,
      batchSize: 7,
      synchronous: 'FULL',
      maxPollInterval: 20,
      resultTtl: 86_400_000,
    });
  });

  it.each([
    [{ url: undefined }, 'url', 'is required'],
    [{ url: '  ' }, 'url', 'is required'],
    [{ url: 'redis://localhost:6379' }, 'url', 'not a SQLite url'],
    [{ queues: [] }, 'queues', 'non-empty array'],
    [{ options: { leaseTTL: 1000 } }, 'leaseTTL', 'is not an option of SqliteBackend'],
    [{ options: { resultTtl: -1 } }, 'resultTtl', 'positive whole number'],
    [{ options: { leaseTtl: 0 } }, 'leaseTtl', 'positive whole number'],
    [{ options: { maintenanceInterval: '1000' } }, 'maintenanceInterval', 'got "1000"'],
    [
      { options: { busyTimeout: Number.POSITIVE_INFINITY } },
      'busyTimeout',
      'positive whole number',
    ],
    [{ options: { batchSize: 2.5 } }, 'batchSize', 'whole number'],
    [{ options: { synchronous: 'OFF' } }, 'synchronous', '"NORMAL" or "FULL"'],
  ] as [Partial<BackendConfig>, string, string][])(
    'refuses %j naming the alias and the option',
    (overrides, option, problem) => {
      const attempt = () => resolveSqliteBackendSettings('orders', config(overrides));
      expect(attempt).toThrow(InvalidBackendConfigError);
      expect(attempt).toThrow(`Threadmill backend "orders": option "${option}"`);
      expect(attempt).toThrow(problem);
    },
  );
});

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

import { InvalidBackendConfigError } from '../../../../lib/core/errors/invalid-backend-config.error';
import { storeRules } from '../../../../lib/lifecycle/store-rules';

// pg is an optional peer: these prove nothing loads it before a PostgresBackend
// is built, and that its absence is a clear configuration error.
describe('the pg driver', () => {
  afterEach(() => {
    jest.resetModules();
    jest.dontMock('pg');
  });

  it('is not loaded by importing the postgres entry point, which exports PostgresBackend', async () => {
    let loaded = false;
    jest.doMock('pg', () => {
      loaded = true;
      return {};
    });
    await jest.isolateModulesAsync(async () => {
      const entry = await import('../../../../lib/backends/postgres');
      expect(typeof entry.PostgresBackend).toBe('function');
    });
    expect(loaded).toBe(false);
  });

  it('missing makes the constructor throw InvalidBackendConfigError naming the alias', async () => {
    jest.doMock('pg', () => {
      throw Object.assign(new Error("Cannot find module 'pg'"), { code: 'MODULE_NOT_FOUND' });
    });
    await jest.isolateModulesAsync(async () => {
      const { PostgresBackend } =
        await import('../../../../lib/backends/postgres/postgres.backend');
      // The error class is loaded inside the isolated registry too, so compare by name and code.
      let thrown: unknown;
      try {
        new PostgresBackend(
          'orders',
          { backend: PostgresBackend, url: 'postgres://127.0.0.1:5432/app' },
          storeRules,
        );
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toMatchObject({
        name: InvalidBackendConfigError.name,
        code: 'INVALID_BACKEND_CONFIG',
        message: expect.stringContaining('"orders"'),
      });
      expect((thrown as Error).message).toContain('npm install pg@8');
    });
  });
});

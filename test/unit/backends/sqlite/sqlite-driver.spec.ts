import { InvalidBackendConfigError } from '../../../../lib/core/errors/invalid-backend-config.error';
import { storeRules } from '../../../../lib/lifecycle/store-rules';

// better-sqlite3 is an optional peer: these prove nothing loads it before a
// SqliteBackend is built, and that its absence is a clear configuration error.
describe('the better-sqlite3 driver', () => {
  afterEach(() => {
    jest.resetModules();
    jest.dontMock('better-sqlite3');
  });

  it('is not loaded by importing the SQLite backend module', async () => {
    let loaded = false;
    jest.doMock('better-sqlite3', () => {
      loaded = true;
      return {};
    });
    await jest.isolateModulesAsync(async () => {
      await import('../../../../lib/backends/sqlite/sqlite.backend');
    });
    expect(loaded).toBe(false);
  });

  it('is not loaded by importing the sqlite entry point, which exports SqliteBackend', async () => {
    let loaded = false;
    jest.doMock('better-sqlite3', () => {
      loaded = true;
      return {};
    });
    await jest.isolateModulesAsync(async () => {
      const entry = await import('../../../../lib/backends/sqlite');
      expect(typeof entry.SqliteBackend).toBe('function');
    });
    expect(loaded).toBe(false);
  });

  it('missing makes the constructor throw InvalidBackendConfigError naming the alias', async () => {
    jest.doMock('better-sqlite3', () => {
      throw Object.assign(new Error("Cannot find module 'better-sqlite3'"), {
        code: 'MODULE_NOT_FOUND',
      });
    });
    await jest.isolateModulesAsync(async () => {
      const { SqliteBackend } = await import('../../../../lib/backends/sqlite/sqlite.backend');
      // The error class is loaded inside the isolated registry too, so compare by name and code.
      let thrown: unknown;
      try {
        new SqliteBackend(
          'orders',
          { backend: SqliteBackend, url: '/nonexistent/x.db' },
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
      expect((thrown as Error).message).toContain('npm install better-sqlite3@12');
    });
  });
});

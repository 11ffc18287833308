import { postgresFailure } from '../../../../lib/backends/postgres/postgres-errors';
import { payloads } from '../../../../lib/backends/postgres/postgres-notices';
import { BackendUnavailableError } from '../../../../lib/core/errors/backend-unavailable.error';
import { StoreFullError } from '../../../../lib/core/errors/store-full.error';

/** An error as pg reports one: a message and the server's SQLSTATE or the socket's code. */
const pgError = (code: string | undefined, message: string): Error =>
  Object.assign(new Error(message), code === undefined ? {} : { code });

describe('postgresFailure', () => {
  const target = 'postgres://app:***@db:5432/app';

  it.each([
    ['57P01', 'terminating connection due to administrator command'],
    ['57P02', 'terminating connection due to crash of another server process'],
    ['57P03', 'the database system is starting up'],
    ['ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'],
    ['ECONNRESET', 'read ECONNRESET'],
    [undefined, 'Connection terminated unexpectedly'],
    [undefined, 'Query read timeout'],
    [undefined, 'timeout exceeded when trying to connect'],
    ['57014', 'canceling statement due to statement timeout'],
  ])(
    'maps %s (%s) to a retryable BackendUnavailableError naming alias and target',
    (code, message) => {
      const mapped = postgresFailure('jobs', target, pgError(code, message));
      expect(mapped).toBeInstanceOf(BackendUnavailableError);
      expect((mapped as BackendUnavailableError).retryable).toBe(true);
      expect((mapped as Error).message).toContain('"jobs"');
      expect((mapped as Error).message).toContain(target);
      expect((mapped as Error).message).toContain(message);
    },
  );

  it('says a statement cancelled by statement_timeout (57014) stored nothing and where to look', () => {
    const mapped = postgresFailure('jobs', target, pgError('57014', 'canceling statement'));
    expect(mapped).toBeInstanceOf(BackendUnavailableError);
    expect((mapped as Error).message).toMatch(/statement_timeout .*nothing of it was stored/);
    expect((mapped as Error).message).toContain('pg_locks');
  });

  it.each([
    [
      'ECONNREFUSED',
      'connect ECONNREFUSED 127.0.0.1:5432',
      "server runs at the url's host and port",
    ],
    ['ENOTFOUND', 'getaddrinfo ENOTFOUND db', "server runs at the url's host and port"],
    ['28P01', 'password authentication failed for user "app"', 'pg_hba.conf'],
    ['28000', 'no pg_hba.conf entry for host "10.0.0.2"', "Check the url's user and password"],
    ['3D000', 'database "app" does not exist', 'Create the database'],
  ])(
    'maps a connection refused with %s to BackendUnavailableError saying what to check',
    (code, message, check) => {
      const mapped = postgresFailure('jobs', target, pgError(code, message));
      expect(mapped).toBeInstanceOf(BackendUnavailableError);
      expect((mapped as Error).message).toContain(target);
      expect((mapped as Error).message).toContain(check);
    },
  );

  it('maps a full disk (53100) to StoreFullError', () => {
    const mapped = postgresFailure('jobs', target, pgError('53100', 'could not extend file'));
    expect(mapped).toBeInstanceOf(StoreFullError);
    expect((mapped as Error).message).toContain('could not extend file');
  });

  it('hands back any other error as it is, never as data', () => {
    const unknown = pgError('23505', 'duplicate key value violates unique constraint');
    expect(postgresFailure('jobs', target, unknown)).toBe(unknown);
  });
});

describe('notification payloads', () => {
  it('splits a long list into JSON arrays each under 8,000 bytes, every item kept in order', () => {
    const items = Array.from({ length: 2000 }, (_, i) => ({ id: `task-${i}-é`, queue: 'default' }));
    const chunks = payloads(items);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(Buffer.byteLength(chunk)).toBeLessThan(8000);
    expect(chunks.flatMap((chunk) => JSON.parse(chunk) as unknown[])).toEqual(items);
  });
});

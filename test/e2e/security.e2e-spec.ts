import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { Redis } from 'ioredis';

import { RedisBackend } from '../../lib/backends/redis/redis.backend';
import { BackendUnavailableError } from '../../lib/core/errors/backend-unavailable.error';
import type { TaskRecord } from '../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import { chaosRecord, readJournal, startPool, type RunningPool } from '../chaos/chaos-harness';
import { freePort } from '../helpers/free-port';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server';
import { testAlias } from '../helpers/test-alias';
import { testRedisUrl } from '../helpers/test-redis-url';
import { removeAliasKeys } from '../helpers/redis-cleanup';
import { waitFor } from '../helpers/wait-for';
import { storeRules } from '../../lib/lifecycle/store-rules';

// Security through the real CLI and real processes: stored data can name only
// registered tasks, and a pool runs over TLS as an ACL user with its password
// never shown — not in its logs while the connection fails, not in errors.

const QUEUES = ['default', 'emails'];

/** A stored task naming `name`, with the journaling task's arguments (so a run would show). */
function named(alias: string, name: string, journal: string): TaskRecord {
  const record = chaosRecord(alias, journal, 0);
  return { ...record, task: { ...record.task, name } };
}

async function untilFinal(backend: RedisBackend, ids: readonly string[]): Promise<TaskRecord[]> {
  return waitFor(
    async () => {
      const records = await Promise.all(ids.map((id) => backend.tasks.getResult(id)));
      return records.every(
        (r) => r.status === TaskResultStatus.SUCCESSFUL || r.status === TaskResultStatus.FAILED,
      )
        ? records
        : null;
    },
    { timeoutMs: 60_000, intervalMs: 50, what: `${ids.length} task(s) to finish` },
  );
}

describe('security (e2e: real CLI and Redis)', () => {
  jest.setTimeout(120_000);
  const pools: RunningPool[] = [];
  let workDir: string;

  beforeAll(() => {
    workDir = mkdtempSync(join(tmpdir(), 'threadmill-security-'));
  });
  afterEach(async () => {
    for (const pool of pools.splice(0)) await pool.killGroup();
  });
  afterAll(() => rmSync(workDir, { recursive: true, force: true }));

  it('stored data can only name a registered @Task: anything else is FAILED UnknownTaskError and nothing runs', async () => {
    const alias = testAlias();
    const backend = new RedisBackend(
      alias,
      {
        backend: RedisBackend,
        url: testRedisUrl(),
        queues: QUEUES,
      },
      storeRules,
    );
    const journal = join(workDir, 'unknown.log');
    // Names that exist as code but not as tasks: Object.prototype members, a provider
    // method without @Task, a task's method under its class name instead of its
    // registered name, and a name nothing has.
    const hostile = [
      'constructor',
      '__proto__',
      'toString',
      'hasOwnProperty',
      'GreetingService.greet',
      'ChaosTasks.record',
      'no.such.task',
    ].map((name) => named(alias, name, journal));
    const good = chaosRecord(alias, journal, 0);
    try {
      await backend.tasks.enqueueMany([...hostile, good]);
      const pool = startPool(
        // No grace: a name no pool registers fails at its first lease.
        ['--alias', alias, '--processes', '1', '--threads', '4', '--unknown-task-grace', '0'],
        { REDIS_URL: testRedisUrl(), THREADMILL_ALIAS: alias },
        pools,
      );
      const done = await untilFinal(
        backend,
        [...hostile, good].map((r) => r.id),
      );

      expect(
        done.slice(0, hostile.length).map((r) => [r.task.name, r.status, r.errors[0]?.className]),
      ).toEqual(hostile.map((r) => [r.task.name, TaskResultStatus.FAILED, 'UnknownTaskError']));
      expect(done[0].errors[0].traceback).toContain(
        'No @Task named "constructor" is registered in this application, so it was not run.',
      );
      // Only the registered task ran: the journal has its id and nothing else.
      expect([...readJournal(journal).keys()]).toEqual([good.id]);
      expect(done[hostile.length].status).toBe(TaskResultStatus.SUCCESSFUL);
      // The child went on: no crash, no restart.
      expect(pool.output()).not.toMatch(/Worker child \d+ (exited|died)/);
      pool.process.kill('SIGTERM');
      expect((await pool.exited).code).toBe(0);
    } finally {
      await backend.close();
      const redis = new Redis(testRedisUrl());
      await removeAliasKeys(redis, alias);
      await redis.quit();
    }
  });

  describe('TLS and AUTH', () => {
    const USER = 'tm-worker';
    const PASSWORD = 'Pw-0f-the-w0rker';
    const OTHER_PASSWORD = 'An0ther-pa55word';
    let server: RedisServerHandle;
    let tlsPort: number;
    let certFile: string;

    beforeAll(async () => {
      // A throw-away self-signed certificate for 127.0.0.1 (Debian's redis-server has TLS built in).
      certFile = join(workDir, 'cert.pem');
      const keyFile = join(workDir, 'key.pem');
      await promisify(execFile)('openssl', [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        keyFile,
        '-out',
        certFile,
      ]);
      tlsPort = await freePort();
      server = await startRedisServer([
        '--tls-port',
        String(tlsPort),
        '--tls-cert-file',
        certFile,
        '--tls-key-file',
        keyFile,
        '--tls-ca-cert-file',
        certFile,
        '--tls-auth-clients',
        'no',
      ]);
      // ACLs after start (the helper's readiness check needs an open PING): a user
      // limited to Threadmill's keys, and no default user.
      const setup = new Redis(server.url);
      await setup.acl('SETUSER', USER, 'on', `>${PASSWORD}`, '~threadmill:*', '+@all');
      await setup.acl('SETUSER', 'admin', 'on', '>admin-pw', '~*', '&*', '+@all');
      await setup.acl('SETUSER', 'default', 'off');
      setup.disconnect();
    }, 30_000);
    afterAll(() => server?.stop());

    const admin = () => new Redis(`redis://admin:admin-pw@127.0.0.1:${server.port}`);

    it('a pool runs over rediss:// as an ACL user, rides out a refused password, and never shows it', async () => {
      const alias = testAlias();
      const url = `rediss://${USER}:${PASSWORD}@127.0.0.1:${tlsPort}`;
      const backend = new RedisBackend(
        alias,
        {
          backend: RedisBackend,
          url,
          queues: QUEUES,
          options: { connectTimeout: 1000, redisOptions: { tls: { ca: readFileSync(certFile) } } },
        },
        storeRules,
      );
      const journal = join(workDir, 'tls.log');
      try {
        const before = Array.from({ length: 20 }, () => chaosRecord(alias, journal, 10));
        await backend.tasks.enqueueMany(before);
        const pool = startPool(
          ['--alias', alias, '--processes', '1', '--threads', '4'],
          // The pool trusts the test's CA the standard Node way.
          { REDIS_URL: url, THREADMILL_ALIAS: alias, NODE_EXTRA_CA_CERTS: certFile },
          pools,
        );
        const done = await untilFinal(
          backend,
          before.map((r) => r.id),
        );
        expect(done.map((r) => r.status)).toEqual(before.map(() => TaskResultStatus.SUCCESSFUL));

        // The password is changed and every connection dropped: the pool's reconnects
        // are refused, and it says so in its log, with the password masked.
        const redis = admin();
        await redis.acl('SETUSER', USER, 'resetpass', `>${OTHER_PASSWORD}`);
        await redis.client('KILL', 'USER', USER);
        await waitFor(() => /WRONGPASS/.test(pool.output()), {
          timeoutMs: 30_000,
          what: 'the pool to log the refused password',
        });
        // A producer with the old password gets a typed error without the password.
        const producerError: unknown = await backend.tasks
          .enqueue(chaosRecord(alias, journal, 0))
          .catch((e: unknown) => e);
        expect(producerError).toBeInstanceOf(BackendUnavailableError);
        expect(String((producerError as Error).stack)).not.toContain(PASSWORD);
        expect((producerError as Error).message).toContain(
          `rediss://${USER}:***@127.0.0.1:${tlsPort}`,
        );

        // Password back: the pool reconnects by itself and goes on.
        await redis.acl('SETUSER', USER, 'resetpass', `>${PASSWORD}`);
        await redis.quit();
        const after = Array.from({ length: 20 }, () => chaosRecord(alias, journal, 10));
        await waitFor(
          () =>
            backend.tasks.enqueueMany(after).then(
              () => true,
              () => false,
            ),
          { timeoutMs: 30_000, intervalMs: 200, what: 'the producer to reconnect' },
        );
        const later = await untilFinal(
          backend,
          after.map((r) => r.id),
        );
        expect(later.map((r) => r.status)).toEqual(after.map(() => TaskResultStatus.SUCCESSFUL));

        pool.process.kill('SIGTERM');
        expect((await pool.exited).code).toBe(0);
        const output = pool.output();
        expect(output).toContain(`${USER}:***@127.0.0.1:${tlsPort}`);
        expect(output).not.toContain(PASSWORD);
        expect(output).not.toContain(encodeURIComponent(PASSWORD));
        expect(output).not.toContain(OTHER_PASSWORD);
      } finally {
        await backend.close();
        const redis = admin();
        await removeAliasKeys(redis, alias);
        await redis.quit();
      }
    });

    it('refuses a server whose certificate it cannot verify (TLS is really on)', async () => {
      const alias = testAlias();
      const backend = new RedisBackend(
        alias,
        {
          backend: RedisBackend,
          url: `rediss://${USER}:${PASSWORD}@127.0.0.1:${tlsPort}`,
          queues: QUEUES,
          options: { connectTimeout: 1000 },
        },
        storeRules,
      );
      try {
        const error: unknown = await backend.ping().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(BackendUnavailableError);
        expect((error as Error).message).toMatch(/self[- ]signed certificate/);
        expect((error as Error).message).not.toContain(PASSWORD);
      } finally {
        await backend.close();
      }
    });
  });
});

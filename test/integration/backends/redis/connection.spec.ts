import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { Redis } from 'ioredis';

import { RedisBackend } from '../../../../lib/backends/redis/redis.backend';
import { BackendUnavailableError } from '../../../../lib/core/errors/backend-unavailable.error';
import { freePort } from '../../../helpers/free-port';
import { removeAliasKeys } from '../../../helpers/redis-cleanup';
import { startRedisServer, type RedisServerHandle } from '../../../helpers/redis-server';
import { testAlias } from '../../../helpers/test-alias';
import { waitFor } from '../../../helpers/wait-for';
import { readyRecord, succeeded } from './redis-fixture';
import { storeRules } from '../../../../lib/lifecycle/store-rules';

const backendAt = (url: string, options: Record<string, unknown> = {}, alias = testAlias()) =>
  new RedisBackend(alias, { backend: RedisBackend, url, queues: ['default'], options }, storeRules);

describe('RedisBackend connections', () => {
  describe('an unreachable Redis', () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    beforeAll(() => process.on('unhandledRejection', onUnhandled));
    afterAll(() => process.off('unhandledRejection', onUnhandled));

    it('fails enqueue with BackendUnavailableError within the connect timeout, password masked', async () => {
      const port = await freePort();
      const backend = backendAt(`redis://app:hunter2@127.0.0.1:${port}/0`, {
        connectTimeout: 500,
      });
      const started = Date.now();
      const error: unknown = await backend.tasks
        .enqueue(readyRecord(backend.alias))
        .catch((e) => e);
      expect(Date.now() - started).toBeLessThan(3000);
      expect(error).toBeInstanceOf(BackendUnavailableError);
      const message = (error as Error).message;
      expect(message).toContain(`redis://app:***@127.0.0.1:${port}/0`);
      expect(message).not.toContain('hunter2');
      expect(message).toMatch(/ECONNREFUSED/);
      await expect(backend.ping()).rejects.toThrow(BackendUnavailableError);
      await backend.close();
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    });
  });

  it('fails a call on an unreachable cluster within the connect timeout instead of queueing it forever', async () => {
    const port = await freePort();
    const backend = new RedisBackend(
      testAlias(),
      {
        backend: RedisBackend,
        queues: ['default'],
        options: { clusterNodes: [`127.0.0.1:${port}`], connectTimeout: 300 },
      },
      storeRules,
    );
    try {
      const started = Date.now();
      await expect(backend.tasks.enqueue(readyRecord(backend.alias))).rejects.toThrow(
        BackendUnavailableError,
      );
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      await backend.close();
    }
  });

  describe('on a private redis-server', () => {
    let server: RedisServerHandle;

    beforeAll(async () => {
      server = await startRedisServer();
      // ACLs are set after start: the helper's readiness check needs an open PING.
      const setup = new Redis(server.url);
      await setup.acl('SETUSER', 'alice', 'on', '>wonderland', '~*', '&*', '+@all');
      await setup.acl('SETUSER', 'default', 'off');
      setup.disconnect();
    });
    afterAll(() => server.stop());

    const url = (password = 'wonderland', db = 3) =>
      `redis://alice:${password}@127.0.0.1:${server.port}/${db}`;

    async function withAdmin<T>(run: (admin: Redis) => Promise<T>, db = 3): Promise<T> {
      const admin = new Redis(url('wonderland', db));
      try {
        return await run(admin);
      } finally {
        await admin.quit();
      }
    }

    it('authenticates as a user and keeps its keys in the URL database', async () => {
      const backend = backendAt(url());
      try {
        const record = await backend.tasks.enqueue(readyRecord(backend.alias));
        const [leased] = await backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 });
        expect(leased.id).toBe(record.id);
        await backend.leases.acknowledge([succeeded(leased)]);
        const pattern = `*${backend.alias}*`;
        expect((await withAdmin((admin) => admin.keys(pattern), 3)).length).toBeGreaterThan(0);
        expect(await withAdmin((admin) => admin.keys(pattern), 0)).toEqual([]);
      } finally {
        await backend.close();
        await withAdmin((admin) => removeAliasKeys(admin, backend.alias));
      }
    });

    it('rejects a wrong password with BackendUnavailableError that does not repeat it', async () => {
      const backend = backendAt(url('not-the-password'), { connectTimeout: 500 });
      try {
        const error: unknown = await backend.ping().catch((e) => e);
        expect(error).toBeInstanceOf(BackendUnavailableError);
        expect((error as Error).message).not.toContain('not-the-password');
      } finally {
        await backend.close();
      }
    });

    it('closes every connection it opened, the blocking ones included', async () => {
      const clientCount = () =>
        withAdmin(
          async (admin) =>
            String(await admin.client('LIST'))
              .trim()
              .split('\n').length,
        );
      const baseline = await clientCount(); // the admin connection itself
      const backend = backendAt(url());
      const controller = new AbortController();
      const waits = [1, 2, 3].map((w) =>
        backend.leases.acquire(['default'], {
          workerId: `w${w}`,
          timeoutMs: 10_000,
          signal: controller.signal,
        }),
      );
      await waitFor(async () => (await clientCount()) === baseline + 4, {
        what: 'main + three blocking connections',
      });
      controller.abort();
      await expect(Promise.all(waits)).resolves.toEqual([[], [], []]);
      await backend.close();
      await waitFor(async () => (await clientCount()) === baseline, {
        what: 'every backend connection to close',
      });
      await withAdmin((admin) => removeAliasKeys(admin, backend.alias));
    });

    it('uses a client handed in, and leaves it open on close', async () => {
      const client = new Redis(url());
      const alias = testAlias();
      const backend = new RedisBackend(
        alias,
        {
          backend: RedisBackend,
          queues: ['default'],
          options: { client },
        },
        storeRules,
      );
      try {
        const waiting = backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 5000 });
        const record = await backend.tasks.enqueue(readyRecord(alias));
        expect((await waiting).map((r) => r.id)).toEqual([record.id]);
        await backend.close();
        await expect(client.ping()).resolves.toBe('PONG');
      } finally {
        await removeAliasKeys(client, alias);
        await client.quit();
      }
    });
  });

  describe('over TLS (rediss://)', () => {
    let server: RedisServerHandle;
    let certDir: string;
    let tlsPort: number;

    beforeAll(async () => {
      // A throw-away self-signed certificate for 127.0.0.1.
      certDir = mkdtempSync(join(tmpdir(), 'threadmill-tls-'));
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
        join(certDir, 'key.pem'),
        '-out',
        join(certDir, 'cert.pem'),
      ]);
      tlsPort = await freePort();
      server = await startRedisServer([
        '--tls-port',
        String(tlsPort),
        '--tls-cert-file',
        join(certDir, 'cert.pem'),
        '--tls-key-file',
        join(certDir, 'key.pem'),
        '--tls-ca-cert-file',
        join(certDir, 'cert.pem'),
        '--tls-auth-clients',
        'no',
      ]);
    }, 20_000);
    afterAll(async () => {
      await server?.stop();
      rmSync(certDir, { recursive: true, force: true });
    });

    it('refuses a server certificate it cannot verify (TLS is really on)', async () => {
      const backend = backendAt(`rediss://127.0.0.1:${tlsPort}`, { connectTimeout: 500 });
      try {
        await expect(backend.ping()).rejects.toThrow(/self[- ]signed certificate/);
      } finally {
        await backend.close();
      }
    });

    it('connects with rediss:// and the CA passed through redisOptions', async () => {
      const backend = backendAt(`rediss://127.0.0.1:${tlsPort}`, {
        redisOptions: { tls: { ca: readFileSync(join(certDir, 'cert.pem')) } },
      });
      try {
        const record = await backend.tasks.enqueue(readyRecord(backend.alias));
        const waiting = await backend.leases.acquire(['default'], {
          workerId: 'w',
          timeoutMs: 1000,
        });
        expect(waiting.map((r) => r.id)).toEqual([record.id]);
      } finally {
        await backend.close();
      }
    });
  });

  describe('a Redis restart', () => {
    let server: RedisServerHandle;
    beforeAll(async () => {
      server = await startRedisServer();
    });
    afterAll(() => server.stop());

    it('survives SCRIPT FLUSH and a restart: scripts are loaded again on their own', async () => {
      const backend = backendAt(server.url, { connectTimeout: 1000 });
      const admin = new Redis(server.url, { lazyConnect: true });
      try {
        await backend.tasks.enqueue(readyRecord(backend.alias));
        await admin.script('FLUSH');
        await backend.tasks.enqueue(readyRecord(backend.alias));
        await admin.quit();

        await server.stop();
        server = await startRedisServer([], server.port);
        // Reconnection takes a moment; until then calls fail fast with a typed error.
        await waitFor(() => backend.ping().then(() => true), { what: 'the backend to reconnect' });
        const record = await backend.tasks.enqueue(readyRecord(backend.alias));
        const [leased] = await backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 });
        expect(leased.id).toBe(record.id);
      } finally {
        await backend.close();
      }
    });
  });
});

import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';

import { RedisKeys } from '../../../../lib/backends/redis/redis-keys';
import { RedisBackend } from '../../../../lib/backends/redis/redis.backend';
import { UnsupportedStoreError } from '../../../../lib/core/errors/unsupported-store.error';
import { startRedisServer, type RedisServerHandle } from '../../../helpers/redis-server';
import { testAlias } from '../../../helpers/test-alias';
import { waitFor } from '../../../helpers/wait-for';
import { commandStats, readyRecord } from './redis-fixture';
import { storeRules } from '../../../../lib/lifecycle/store-rules';

// A store that forgets is noticed: how Redis keeps its data is read when the
// backend reaches it (AOF fine, snapshots a warning naming the window, nothing
// on disk a louder one, or a refusal with requirePersistence), and a restart
// that came back without the data is told apart from one that kept it. Each on
// private redis-servers, restarted at will.

const AOF = ['--appendonly', 'yes', '--appendfsync', 'always'];

describe('RedisBackend and how Redis keeps its data', () => {
  const servers: RedisServerHandle[] = [];
  const backends: RedisBackend[] = [];
  let warnings: string[];
  let errors: string[];

  beforeEach(() => {
    warnings = [];
    errors = [];
    jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => {
      warnings.push(String(message));
    });
    jest.spyOn(Logger.prototype, 'error').mockImplementation((message: unknown) => {
      errors.push(String(message));
    });
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    for (const backend of backends.splice(0)) await backend.close();
    for (const server of servers.splice(0)) await server.stop();
  });

  const server = async (args: string[], port?: number, dir?: string) => {
    const started = await startRedisServer(dir ? [...args, '--dir', dir] : args, port);
    servers.push(started);
    return started;
  };
  const backendAt = (url: string, options: Record<string, unknown> = {}): RedisBackend => {
    const backend = new RedisBackend(
      testAlias(),
      {
        backend: RedisBackend,
        url,
        queues: ['default'],
        options: { connectTimeout: 1000, ...options },
      },
      storeRules,
    );
    backends.push(backend);
    return backend;
  };
  const about = (pattern: RegExp) => warnings.filter((line) => pattern.test(line));

  it('says nothing of AOF, names the window of RDB snapshots, and warns of nothing on disk, once each', async () => {
    const logged = backendAt((await server(AOF)).url);
    const snapshots = backendAt((await server(['--save', '60 1 10 1000'])).url);
    const nothing = backendAt((await server([])).url);
    for (const backend of [logged, snapshots, nothing]) {
      await backend.ping();
      await backend.tasks.enqueue(readyRecord(backend.alias));
    }
    expect(logged.storeCondition()).toEqual({ persistence: 'log', dataLost: null });
    expect(snapshots.storeCondition()).toEqual({ persistence: 'snapshots', dataLost: null });
    expect(nothing.storeCondition()).toEqual({ persistence: 'none', dataLost: null });
    expect(about(/AOF|RDB|on disk/)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^Threadmill backend "${snapshots.alias}": Redis at .* keeps its data in RDB snapshots ` +
            'only \\(AOF is off\\), so a crash or restart loses every task .* since its last ' +
            'snapshot: it snapshots after 60 s if 1 key\\(s\\) changed, after 10 s if 1000, so ' +
            'up to 60 s of work\\. Turn on AOF',
        ),
      ),
      expect.stringMatching(
        new RegExp(
          `^Threadmill backend "${nothing.alias}": Redis at .* keeps nothing on disk \\(no AOF, ` +
            'no RDB snapshots\\)\\. A restart or crash of it loses every task .* requirePersistence',
        ),
      ),
    ]);
  });

  it('takes a Redis that refuses CONFIG, with AOF off, to snapshot, and says its schedule is unknown', async () => {
    const redis = await server(['--save', '']);
    const admin = new Redis(redis.url);
    try {
      // A managed Redis's application user: every command but CONFIG.
      await admin.acl('SETUSER', 'app', 'on', '>secret', '~*', '&*', '+@all', '-config');
    } finally {
      await admin.quit();
    }
    const backend = backendAt(`redis://app:secret@127.0.0.1:${redis.port}`, {
      requirePersistence: true,
    });
    await expect(backend.tasks.enqueue(readyRecord(backend.alias))).resolves.toBeDefined();
    expect(backend.storeCondition().persistence).toBe('snapshots');
    expect(about(/RDB snapshots only/)).toEqual([
      expect.stringMatching(/its snapshot schedule could not be read: CONFIG GET is not allowed/),
    ]);
  });

  it('refuses a Redis that keeps nothing with requirePersistence, naming why, and stores nothing', async () => {
    const redis = await server([]);
    const backend = backendAt(redis.url, { requirePersistence: true });
    const error = await backend.tasks.enqueue(readyRecord(backend.alias)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsupportedStoreError);
    expect((error as Error).message).toMatch(
      /will not use Redis at .*: it keeps nothing on disk .* requirePersistence is set/,
    );
    const admin = new Redis(redis.url);
    try {
      expect(await admin.dbsize()).toBe(0);
      // Checked again until it passes: once Redis snapshots, the same backend works.
      await admin.config('SET', 'save', '3600 1');
      await expect(backend.tasks.enqueue(readyRecord(backend.alias))).resolves.toBeDefined();
    } finally {
      await admin.quit();
    }
  });

  it('notices a restart that came back without the data: an error naming it, once, and dataLost', async () => {
    const first = await server([]);
    const backend = backendAt(first.url);
    await backend.tasks.enqueue(readyRecord(backend.alias));
    await first.stop();
    await server([], first.port);
    // The first call sent once the connection is back reads the mark again, before it runs.
    await waitFor(() => backend.ping().then(() => backend.storeCondition().dataLost), {
      what: 'the backend to reconnect and find the data gone',
    });
    const lost = errors.filter((line) => /is gone/.test(line));
    expect(lost).toEqual([
      expect.stringMatching(
        new RegExp(
          `^Threadmill backend "${backend.alias}": the data in Redis at redis://127\\.0\\.0\\.1:` +
            `${first.port} is gone\\. The mark this store has held since \\d{4}-.* was missing or ` +
            'replaced .*: Redis restarted without persistence, or its data was flushed or deleted\\.',
        ),
      ),
    ]);
    expect(backend.storeCondition().dataLost).toBe(lost[0]);
    // The store is usable again, and what was lost stays reported.
    await expect(backend.tasks.enqueue(readyRecord(backend.alias))).resolves.toBeDefined();
    expect(backend.storeCondition().dataLost).toBe(lost[0]);
  });

  it('takes a restart that kept the data (AOF) for no loss', async () => {
    const first = await server(AOF);
    const backend = backendAt(first.url);
    const record = await backend.tasks.enqueue(readyRecord(backend.alias));
    const exited = new Promise((resolve) => first.process.once('exit', resolve));
    first.process.kill('SIGKILL');
    await exited;
    // Same port, same directory: the server replays its append-only file.
    await server(AOF, first.port, first.dir);
    await waitFor(() => backend.ping().then(() => true), { what: 'the backend to reconnect' });
    await expect(backend.tasks.getResult(record.id)).resolves.toMatchObject({ id: record.id });
    expect(errors.filter((line) => /is gone/.test(line))).toEqual([]);
    expect(backend.storeCondition()).toEqual({ persistence: 'log', dataLost: null });
    const admin = new Redis(first.url);
    try {
      // The mark was read again on the restarted server, and found as it was.
      expect((await commandStats(admin)).get).toBeGreaterThanOrEqual(1);
      expect(await admin.get(new RedisKeys(backend.alias).storeMark)).toMatch(
        /^\d+ [0-9a-f-]{36}$/,
      );
    } finally {
      await admin.quit();
    }
  });
});
